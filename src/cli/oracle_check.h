/* oracle_check.h — `cutec layout check`: run the oracle's test vectors (the .jsonl format
 * of shared/oracle/README.md) through the library and report what differs. */
#ifndef CUTEC_CLI_ORACLE_CHECK_H
#define CUTEC_CLI_ORACLE_CHECK_H

#include <stdbool.h>

#include "json.h"
#include "strbuf.h"

/* Check all cases of the files; prints one line per failing case, a summary per family
 * and finally "N passed, N failed".  Returns the CLI exit code. */
int oracle_check_main(int nfiles, char **files);

/* One case (oracle_case.c): true when our answer matches; otherwise why (inputs, expected,
 * got) is written into `why`. */
bool oracle_case_run(const json_object *o, strbuf *why);
/* the family a case counts under: its op, "(unknown op)" or "(no op)"; a static string */
const char *oracle_case_family(const json_object *o);

#endif
