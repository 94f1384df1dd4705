/*
 * One level of a datatype's constructor tree, read with
 * MPI_Type_get_envelope / MPI_Type_get_contents: the combiner and its
 * integer, address and datatype arguments.  The recursive decoders
 * (signature.c, penalty.c, flatten.c) walk the tree with it.  Datatypes that
 * MPI_Type_get_contents returns are freed unless predefined (MPI's rule).
 * A type of MPI-4's large-count constructors is PCOLL_ERR_UNSUPPORTED here
 * (its counts do not fit the int arguments), not an abort in MPI.
 */
#include "base/mem.h"
#include "base/status.h"
#include "datatype/contents.h"
#include "datatype/size.h"

int pcoll__combiner_predefined(int combiner)
{
    return combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL ||
           combiner == MPI_COMBINER_F90_COMPLEX || combiner == MPI_COMBINER_F90_INTEGER;
}

int pcoll__type_predefined(MPI_Datatype type)
{
    int ni, na, nd, combiner;
    if (pcoll__type_envelope(type, &ni, &na, &nd, &combiner) < 0)
        return 0;
    return pcoll__combiner_predefined(combiner);
}

void pcoll__type_release(MPI_Datatype *type)
{
    if (*type != MPI_DATATYPE_NULL && !pcoll__type_predefined(*type))
        MPI_Type_free(type);
    *type = MPI_DATATYPE_NULL;
}

void pcoll__contents_free(pcoll__contents_t *c)
{
    for (int i = 0; i < c->ntypes; i++)
        pcoll__type_release(&c->types[i]);
    pcoll__free(c->ints);
    pcoll__free(c->addrs);
    pcoll__free(c->types);
    c->ints = NULL;
    c->addrs = NULL;
    c->types = NULL;
    c->ntypes = 0;
}

int pcoll__contents_get(MPI_Datatype type, const char *what, pcoll__contents_t *c)
{
    int rc;
    c->ntypes = 0;
    c->ints = NULL;
    c->addrs = NULL;
    c->types = NULL;
    rc = pcoll__type_envelope(type, &c->ni, &c->na, &c->nd, &c->combiner);
    if (rc < 0)
        return pcoll__error(PCOLL_ERR_MPI, "%s: MPI_Type_get_envelope failed", what);
    if (rc > 0)
        return pcoll__error(PCOLL_ERR_UNSUPPORTED,
                            "%s: a type made by an MPI-4 large-count constructor with a value "
                            "over INT_MAX cannot be decoded",
                            what);
    if (pcoll__combiner_predefined(c->combiner))
        return PCOLL_SUCCESS;
    c->ints = pcoll__malloc((size_t)(c->ni > 0 ? c->ni : 1) * sizeof *c->ints);
    c->addrs = pcoll__malloc((size_t)(c->na > 0 ? c->na : 1) * sizeof *c->addrs);
    c->types = pcoll__malloc((size_t)(c->nd > 0 ? c->nd : 1) * sizeof *c->types);
    if (!c->ints || !c->addrs || !c->types)
        return pcoll__error(PCOLL_ERR_NOMEM, "%s: type contents", what);
    if (pcoll__type_contents(type, c->ni, c->na, c->nd, c->ints, c->addrs, c->types) != 0)
        return pcoll__error(PCOLL_ERR_MPI, "%s: MPI_Type_get_contents failed", what);
    c->ntypes = c->nd;
    return PCOLL_SUCCESS;
}
