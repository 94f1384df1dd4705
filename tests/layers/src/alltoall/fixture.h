/* Fixture of the test layers_address (tests/CMakeLists.txt). */
int pcoll__fixture_step(void);
int pcoll__fixture_variant(void);
