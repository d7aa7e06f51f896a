// SPDX-License-Identifier: GPL-2.0
// Workload: GOROUTINES goroutines fight over one sync.Mutex for SECONDS,
// holding it for a 20 us section in bumpShared. Go parks the goroutines
// itself; the futex waits the kernel sees are its scheduler's idle threads.
//   go_mutex GOROUTINES SECONDS
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

var mu sync.Mutex
var shared uint64

//go:noinline
func bumpShared() {
	mu.Lock()
	end := time.Now().Add(20 * time.Microsecond)
	for time.Now().Before(end) {
		shared = shared*31 + 1
	}
	mu.Unlock()
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go_mutex GOROUTINES SECONDS")
		os.Exit(2)
	}
	n, _ := strconv.Atoi(os.Args[1])
	secs, _ := strconv.Atoi(os.Args[2])
	if secs == 0 {
		secs = 1 << 30
	}
	end := time.Now().Add(time.Duration(secs) * time.Second)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				bumpShared()
			}
		}()
	}
	fmt.Println("ready")
	wg.Wait()
}
