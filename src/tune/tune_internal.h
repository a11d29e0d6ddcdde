/* Internal: the tuning file's format limits (db.c, tune_file.c). */
#ifndef CUTEC_TUNE_INTERNAL_H
#define CUTEC_TUNE_INTERNAL_H

#define TUNE_HEADER "cutec-tune 1" /* the first line: the format and its version */
#define TUNE_MAX_LINE 1024          /* bytes of one line */
#define TUNE_MAX_SMS 100000
#define TUNE_MAX_BYTES (4 << 20)    /* a file larger than this is not ours */
#define TUNE_FILE_NAME "tune.txt"   /* in the JIT cache's directory */

#endif
