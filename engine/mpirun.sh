#!/bin/sh
# Thin mpirun wrapper so no caller has to remember the local launch rules:
# - OpenMPI refuses to start as root unless told twice, so allow it only when we are root;
# - --oversubscribe: a 2-core box must still run 4 or 8 ranks for tests;
# - --bind-to none: the cores are shared with other work, pinning would make ranks fight.
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
exec mpirun --oversubscribe --bind-to none "$@"
