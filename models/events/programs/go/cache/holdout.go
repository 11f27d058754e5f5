// The holdout actions (H1-H4), kept out of main.go so that the line numbers in its other actions'
// stack traces stay as they were.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"example.com/gocache/store"
)

func withHoldout(c *Cache, actions map[string]func()) map[string]func() {
	actions["H1"] = c.compactWithWatchdog
	actions["H2"] = c.restoreSnapshot
	actions["H3"] = c.unsubscribeTwice // crash
	actions["H4"] = c.countHits        // crash
	return actions
}

// ---- H1: a compaction stuck on a shard lock; the watchdog logs every goroutine's stack (runtime.Stack).

func (c *Cache) compactWithWatchdog() {
	shard := c.rnd.Intn(8)
	limit := time.Duration(10+c.rnd.Intn(30)) * time.Millisecond
	var lock sync.Mutex
	lock.Lock() // held by a snapshot that takes longer than the watchdog allows
	done := make(chan struct{})
	go func() {
		defer close(done)
		lock.Lock()
		defer lock.Unlock()
	}()
	start := time.Now()
	select {
	case <-done:
	case <-time.After(limit):
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		log.Printf("watchdog: compaction of shard %d stuck for %v, goroutines:\n%s", shard,
			time.Since(start).Round(time.Millisecond), buf[:n])
	}
	lock.Unlock()
	<-done
}

// ---- H2: a snapshot loader panics with a wrapped error; the caller recovers and logs it with debug.Stack().

func (c *Cache) restoreSnapshot() {
	shard := store.NewShard(c.rnd.Intn(8))
	dir, _ := filepath.Abs(filepath.Join("data", "snapshots", fmt.Sprintf("shard-%d.%d", shard.ID, 1+c.rnd.Intn(40))))
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				if err, ok := r.(error); ok && errors.Is(err, fs.ErrNotExist) {
					log.Printf("snapshot: %v\n%s", err, debug.Stack())
					return
				}
				panic(r)
			}
		}()
		shard.Restore(dir)
	}()
	<-done
}

// ---- H3: a subscription closed by its expiry and then by the client: close of closed channel.

type subscription struct {
	key     string
	updates chan string
	once    sync.Once
}

func (s *subscription) expire() {
	s.once.Do(func() { close(s.updates) })
}

func (s *subscription) Close() {
	close(s.updates)
}

func (c *Cache) unsubscribeTwice() {
	sub := &subscription{key: c.key(), updates: make(chan string, 1+c.rnd.Intn(16))}
	expired := make(chan struct{})
	go func() {
		sub.expire()
		close(expired)
	}()
	<-expired
	sub.Close()
}

// ---- H4: hit counters updated from several goroutines without a lock: fatal error: concurrent map writes.

func (c *Cache) countHits() {
	hits := map[string]int{}
	keys := make([]string, 16)
	for i := range keys {
		keys[i] = c.key()
	}
	var wg sync.WaitGroup
	for w := 0; w < 2+c.rnd.Intn(3); w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				hits[keys[(i+w)%len(keys)]]++
			}
		}(w)
	}
	wg.Wait()
	fmt.Fprintln(os.Stderr, len(hits))
}
