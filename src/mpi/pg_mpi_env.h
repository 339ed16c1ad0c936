/*
 * pg_mpi_env.h - what `pangaea` (src/cli/run/mpi_run.c) tells the ranks
 * of an MPI run through the launcher's environment passing, and what the
 * PMPI library (src/mpi/) reads: the names only, no mpi.h (the command is
 * built once, for both MPIs).  The values are those of a PVM run's
 * PANGAEA_MODE and PANGAEA_LOGDIR (src/pvm/runtime/pg_proto.h), so that a
 * user sees one vocabulary.
 */
#ifndef PG_MPI_ENV_H
#define PG_MPI_ENV_H

#define PGM_ENV_MODE "PANGAEA_MODE"     /* log | replay | none | whatif */
#define PGM_ENV_LOGDIR "PANGAEA_LOGDIR" /* absolute */
/* -whatif: the mode is "whatif" and this names the plan (mpi_force.c);
 * -chaos: the run's seed (mpi_chaos.c).  The names of a PVM run's. */
#define PGM_ENV_WHATIF "PANGAEA_WHATIF"
#define PGM_ENV_CHAOS "PANGAEA_CHAOS"
/* -replay -stop: "L:E,L:E" (mpi_stop.c). */
#define PGM_ENV_STOP "PANGAEA_STOP"
/* -replay -debug: "L" or "L:E"; where gdb opens ("window:$TMUX" or
 * "session:SOCKET"); pangaea's pid@host; the debugger script that opens
 * it (mpi_stop.c attaches gdb to the rank through it).  A PVM run's
 * names. */
#define PGM_ENV_DEBUG "PANGAEA_DEBUG"
#define PGM_ENV_TMUX "PANGAEA_TMUX"
#define PGM_ENV_TOP_PID "PANGAEA_TOP_PID"
#define PGM_ENV_DEBUGGER "PVM_DEBUGGER"
/* -replay -pack: the unpacked programs, PROGDIR/SHA256/NAME (a PVM
 * run's name; mpi_log.c lets a rank run its recorded program's copy). */
#define PGM_ENV_PROGDIR "PANGAEA_PROGDIR"
/* Set by the rank for that script: the pid gdb attaches to. */
#define PGM_ENV_ATTACH "PANGAEA_ATTACH"
/* A directory of pangaea's own for the run, where a rank that ends the
 * run (a replay that diverged, something refused) leaves why, in a file
 * PGM_NOTE_NAME: pangaea prints it and exits with its status, whatever
 * the launcher forwarded or returned (docs/mpi-notes.md). */
#define PGM_ENV_NOTES "PANGAEA_MPI_NOTES"
#define PGM_NOTE_NAME "ltid-%d.why" /* "STATUS\nMESSAGE" */
/* In that directory: the next ltid free for spawned ranks, in decimal
 * (src/mpi/mpi_spawn.c), removed with it. */
#define PGM_SPAWNS_NAME "spawned-ltids"
/* The calls a rank's live gate holds before (mpi_gate.c: each wrapper's
 * PGM_GATE names one of them), as the live page's breakpoints name them
 * (src/cli/live/live_ctl.c); MPI_Ssend and MPI_Issend are gated as the
 * logs name them, MPI_Send and MPI_Isend. */
#define PGM_GATED_CALLS                                                     \
    "MPI_Send", "MPI_Isend", "MPI_Recv", "MPI_Sendrecv", "MPI_Probe",       \
        "MPI_Iprobe", "MPI_Wait", "MPI_Test", "MPI_Request_get_status",     \
        "MPI_Waitany", "MPI_Testany", "MPI_Waitall", "MPI_Testall",         \
        "MPI_Waitsome", "MPI_Testsome", "MPI_Start", "MPI_Startall"

#endif
