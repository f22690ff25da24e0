# The toolchain of the `compiler = "clang++"` settings of sweeps/toolchains.toml: OpenMPI's mpicxx wraps
# Debian's clang++ (scripts/install-deps.sh installs it). Sourced like envs/g++.sh.
command -v clang++ >/dev/null 2>&1 || { echo "clang++ not found: run scripts/install-deps.sh" >&2; return 1; }
export OMPI_CXX=clang++
