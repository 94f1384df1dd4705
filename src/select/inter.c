/*
 * The choice on an intercommunicator (select.h): only the direct exchange
 * between the two groups (`inter`) and the MPI's own call serve there; the
 * cost model and the tuning rules, made for one group, do not apply.
 */
#include "select/select.h"

int pcoll__select_inter(const pcoll__algo_table_t *t, int requested)
{
    return pcoll__algo_is_auto(t, requested) ? pcoll__algo_find(t, "inter") : requested;
}
