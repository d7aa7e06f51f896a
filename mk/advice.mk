# The advice's end-to-end cases (tests/integration/test_advice_cases.c)
# trace sysbench's mutex benchmark, a real program on glibc's own mutex.
DEB_DEPS += sysbench
