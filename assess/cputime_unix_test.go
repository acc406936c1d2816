//go:build unix

package assess_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used so far (all threads), for
// benchmarks that report it beside wall time: on a machine shared with
// other work it moves far less.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
