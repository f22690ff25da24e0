# The total line of scripts/test.sh: the sum of every test binary's passed, failed and ignored counts
# from cargo test's "test result:" lines. A log without one (a build failed before any test ran) says so
# instead of a total that would read as "0 failed".
/^test result:/ { n++; p += $4; f += $6; i += $8 }
END {
    if (n == 0) print "TOTAL: no test ran (a build failed: see above)"
    else printf "TOTAL: %d passed, %d failed, %d ignored (%d test binaries)\n", p, f, i, n
}
