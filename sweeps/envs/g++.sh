# The toolchain of the `compiler = "g++"` settings of sweeps/toolchains.toml: OpenMPI's mpicxx wraps
# Debian's g++. The harness sources this (bash, from the engine tree) once per sweep; those settings'
# runs and toolchain version commands (`mpicxx --version`, recorded in every CSV row) start from the
# environment it leaves. A CANN toolkit's script is the same idea: see README, "Comparing toolchains".
command -v g++ >/dev/null 2>&1 || { echo "g++ not found: run scripts/install-deps.sh" >&2; return 1; }
export OMPI_CXX=g++
