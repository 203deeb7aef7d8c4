/* The command line's code (src/main.c) for a fuzz target that runs a
 * command in process (tests/fuzz_diff.c): its main() under another
 * name, so that libFuzzer's or the replay driver's is the program's. */
#define main profconv_main
int main(int argc, char **argv);
#include "../src/main.c"
