/* Fixture of the test layers_address (tests/CMakeLists.txt): a shared step
 * next to a choice that takes the address of variant.c's builder without
 * calling it -- a loop between the two files all the same. */
#include "alltoall/fixture.h"

int pcoll__fixture_step(void)
{
    return 0;
}

int (*pcoll__fixture_choose(void))(void)
{
    return pcoll__fixture_variant;
}
