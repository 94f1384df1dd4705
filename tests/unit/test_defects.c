/*
 * test_defects.c -- the table of known MPI defects (src/core/defects.c)
 * against the MPI_Get_library_version texts of real libraries (no MPI
 * calls): which defects each version range and device has.
 */
#include <stdio.h>

#include "core/defects.h"

static int passed, failed;

#define UCX (1u << PCOLL__DEFECT_UCX_SPLIT_UNPACK)
#define W (1u << PCOLL__DEFECT_ALLTOALLW_INPLACE)
#define BRUCK (1u << PCOLL__DEFECT_OMPI_ALLTOALL_BRUCK)
#define SESSIONS (1u << PCOLL__DEFECT_OMPI_SESSIONS_REDUCE_LOCAL)
#define MSESS (1u << PCOLL__DEFECT_MPICH_SESSIONS)
#define IRS (1u << PCOLL__DEFECT_MPICH_INTER_RS_INIT)
#define NCART (1u << PCOLL__DEFECT_OMPI_NEIGHBOR_CART)
#define NORDER (1u << PCOLL__DEFECT_MPICH_NEIGHBOR_ORDER)

static void expect(const char *version, unsigned want)
{
    unsigned got = pcoll__mpi_defects_of(version);
    if (got == want) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL \"%.40s...\": defects 0x%x, want 0x%x\n", version, got, want);
}

int main(void)
{
    /* Debian 12's MPICH, and the same line on other versions and devices. */
    expect("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n"
           "MPICH ABI:\t14:2:2\nMPICH Device:\tch4:ucx\n",
           UCX | W | MSESS | IRS | NORDER);
    expect("MPICH Version:\t3.4.3\nMPICH Device:\tch4:ucx\n", UCX | W | MSESS | IRS | NORDER);
    expect("MPICH Version:\t4.1\nMPICH Device:\tch4:ucx\n", UCX | W | IRS | NORDER);
    expect("MPICH Version:\t4.1.1\nMPICH Device:\tch4:ucx\n", UCX | IRS | NORDER);
    expect("MPICH Version:\t4.1.2\nMPICH Device:\tch4:ofi\n", IRS | NORDER);
    expect("MPICH Version:\t4.0.2\nMPICH Device:\tch4:ofi\n", W | MSESS | IRS | NORDER);
    expect("MPICH Version:\t4.0.2\nMPICH Device:\tch3:nemesis\n", W | MSESS | IRS | NORDER);
    expect("MPICH Version:\t4.2.0\nMPICH Device:\tch4:ucx\n", IRS | NORDER);
    /* The pip wheel. */
    expect("MPICH Version:      5.0.2\nMPICH Device:       ch4:ucx ofi\n", 0);
    /* Other libraries. */
    expect("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4",
           BRUCK | NCART);
    expect("Open MPI v4.0.7, package: Open MPI, ident: 4.0.7", BRUCK | NCART);
    expect("Open MPI v4.1.5, package: Open MPI, ident: 4.1.5", NCART);
    expect("Open MPI v5.0.8, package: Open MPI, ident: 5.0.8", SESSIONS | NCART);
    expect("Open MPI v5.0.11, package: Open MPI user@localhost Distribution, ident: 5.0.11",
           SESSIONS | NCART);
    expect("MVAPICH2 Version:\t2.3.7\nMVAPICH2 Device:\tch3:mrail\n", 0);
    expect("Intel(R) MPI Library 2021.10 for Linux* OS\n", 0);
    expect("", 0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
