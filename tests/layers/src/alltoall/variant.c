/* Fixture of the test layers_address (tests/CMakeLists.txt): a variant that
 * calls a shared step of chooser.c. */
#include "alltoall/fixture.h"

int pcoll__fixture_variant(void)
{
    return pcoll__fixture_step();
}
