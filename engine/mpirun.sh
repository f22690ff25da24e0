#!/bin/sh
# Thin mpirun wrapper so no caller has to remember the local launch rules:
# - OpenMPI refuses to start as root unless told twice, so allow it only when we are root;
# - --oversubscribe: a 2-core box must still run 4 or 8 ranks for tests;
# - --bind-to core when the ranks fit the cores, else none. Unbound, the kernel may stack two
#   busy-polling ranks on one core while other work holds the second: every collective then waits
#   for a timeslice, and a whole run comes out 1000x slow (measured: 3 of 12 two-rank
#   --allreduce-bench runs on a loaded 2-core box unbound, 0 of 12 bound). More ranks than cores
#   stay unbound, so the kernel spreads them as it can.
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
ranks=0
previous=
for arg in "$@"; do
    case $previous in -n | -np | --np) ranks=$arg ;; esac
    previous=$arg
done
bind=none
case $ranks in
    '' | *[!0-9]*) ;;
    *) [ "$ranks" -ge 1 ] && [ "$ranks" -le "$(nproc)" ] && bind=core ;;
esac
exec mpirun --oversubscribe --bind-to "$bind" "$@"
