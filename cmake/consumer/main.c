/* Links against an installed pcoll and checks one status message. */
#include <pcoll.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    const char *msg = pcoll_strerror(PCOLL_ERR_ARG);

    /* Callable before MPI_Init: proves that MPI is linked, too. */
    MPI_Get_library_version(version, &len);
    printf("pcoll %d.%d.%d on %.*s\n", PCOLL_VERSION_MAJOR, PCOLL_VERSION_MINOR,
           PCOLL_VERSION_PATCH, (int)strcspn(version, "\n"), version);
    printf("pcoll_strerror(PCOLL_ERR_ARG) = \"%s\"\n", msg ? msg : "(null)");
    return msg != NULL && msg[0] != '\0' && strcmp(msg, pcoll_strerror(PCOLL_SUCCESS)) != 0 ? 0 : 1;
}
