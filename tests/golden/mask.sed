# SPDX-License-Identifier: BSD-3-Clause
# What differs from one run of the capture to the next on the same input,
# masked in its golden text (tests/golden/golden.sh, sed -E): the run's
# length, the poll loop's figures (empty polls and cycles depend on the
# CPU and its load), the TSC's frequency, the rates, the data clock against
# the host's (the warning's offset and the newest frame it saw then), and
# the test's pid in the file prefix. Every count of frames, packets and
# bytes stays as printed. Mask nothing else here. golden.sh then moves -v's
# lines (the rx lcore's) after the main thread's, and the clock warnings
# (printed when the main loop looked) after those: where the threads'
# lines fall among each other is the moment's.
s/^(=== dpdk-ibvcap summary \()[0-9.]+ s,/\1X s,/
s/^(Busy wait: +)[0-9]+$/\1X/
s/^(Busy wait \/ packet: +)[0-9.]+$/\1X/
s/^(Rx cycles \/ packet: +)[0-9]+( +\(TSC )[0-9.]+ GHz/\1X\2X GHz/
s/^(Average rate: +)[0-9.]+ Gb\/s, [0-9.]+ Mpps$/\1X Gb\/s, X Mpps/
s/(its data time is )[0-9.]+ s (behind|ahead of) the host clock \(newest frame [0-9T:.Z-]+;/\1X s \2 the host clock (newest frame X;/
s/ibvt[0-9]+/ibvtPID/g
