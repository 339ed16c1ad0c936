/*
 * pangaea.h - the few calls a PVM program may make to Pangaea on purpose.
 *
 * Pangaea records the order of a PVM run and replays it.  A program needs
 * none of these calls: the runtime library takes the PVM calls by their own
 * names (linked ahead of -lpvm3, or preloaded by the `pangaea` command) and
 * starts and stops itself.  These calls exist for programs that want to say
 * when Pangaea starts and ends, or to know what it is doing.
 */
#ifndef PANGAEA_H
#define PANGAEA_H

#ifdef __cplusplus
extern "C" {
#endif

/* What the runtime does in this task. */
typedef enum {
    PANGAEA_OFF = 0,    /* not started by `pangaea`: every call passes through */
    PANGAEA_NONE = 1,   /* under `pangaea -none`: ltids and headers, no logs   */
    PANGAEA_LOG = 2,    /* recording                                           */
    PANGAEA_REPLAY = 3  /* replaying a recording                               */
} pangaea_mode_t;

/* Starts the runtime in this task now instead of at its first PVM call.
 * Returns 0, or -1 if the environment `pangaea` set up is broken (a message
 * has then been printed on stderr).  Calling it again does nothing. */
int pangaea_init(void);

/* Closes this task's logs and leaves PVM (as pvm_exit does).  Optional: the
 * runtime does the same when the process exits. */
int pangaea_exit(void);

/* The logical task id of this task (the same in every run of the program),
 * or -1 when the runtime is off. */
int pangaea_ltid(void);

/* The runtime's mode in this task. */
pangaea_mode_t pangaea_mode(void);

/* Selective logging and replay.  Between pangaea_suspend() and
 * pangaea_resume() this task's sends and receives are neither logged
 * (recording) nor matched against the log (replay); they still carry their
 * header, and spawns are always logged.  Calls nest.  A program must
 * suspend at the same points in replay as when recorded, which it does when
 * the calls depend on nothing but its own logic. */
void pangaea_suspend(void);
void pangaea_resume(void);

#ifdef __cplusplus
}
#endif
#endif
