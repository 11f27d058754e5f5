// The final actions (K1-K4), kept out of main.go and holdout.go so that the other actions' stack traces
// stay as they were: not only their line numbers but main.main's compiled code too (its +0x offsets show
// in crash reports, and withHoldout is inlined into it). So a plan with K codes is run by runFinalPlan,
// a copy of main's loop started from an init function; a plan without them never gets there.
// No package that links cgo (net, os/user) may be imported here: with cgo in the binary the runtime's
// deadlock detection (GoCache F5, "all goroutines are asleep") is off.
package main

import (
	"bufio"
	"fmt"
	"log"
	"math/rand"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func init() {
	if len(os.Args) == 3 && planHasFinal(os.Args[2]) {
		runFinalPlan()
		os.Exit(0)
	}
}

func readPlan(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var plan []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			plan = append(plan, s)
		}
	}
	return plan
}

func planHasFinal(path string) bool {
	for _, a := range readPlan(path) {
		if strings.HasPrefix(a, "K") {
			return true
		}
	}
	return false
}

// runFinalPlan is main() with the K actions added (same seed use, same pool, same ordinary lines).
func runFinalPlan() {
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	seed, _ := strconv.ParseInt(os.Args[1], 10, 64)
	rnd := rand.New(rand.NewSource(seed))
	plan := readPlan(os.Args[2])
	c := newCache(rnd, 2+rnd.Intn(6))
	actions := withFinal(c, withHoldout(c, map[string]func(){
		"L1": c.compacted, "L2": c.served, "L3": c.lagging, "L4": c.evicted,
	}))
	for _, a := range plan {
		mark(a)
		actions[a]()
	}
}

func withFinal(c *Cache, actions map[string]func()) map[string]func() {
	actions["K1"] = c.reloadConfig     // log.Fatalf: ends the process
	actions["K2"] = c.chargeQuota      // crash: panic with a struct value
	actions["K3"] = c.cleanupShard     // errors.Join-style, one error per line
	actions["K4"] = c.patchSnapshotMap // crash: unexpected fault address (SIGSEGV)
	return actions
}

// ---- K1: a config reload collects every bad setting into one multi-error (go-multierror's format) and
// log.Fatalf's it: no stack, the process exits 1.

type multiError []error

func (es multiError) Error() string {
	points := make([]string, len(es))
	for i, err := range es {
		points[i] = "* " + err.Error()
	}
	return fmt.Sprintf("%d errors occurred:\n\t%s\n\n", len(es), strings.Join(points, "\n\t"))
}

func (c *Cache) reloadConfig() {
	path, _ := filepath.Abs(filepath.Join("conf", fmt.Sprintf("gocache.%d.conf", 1+c.rnd.Intn(9))))
	settings := []func() error{
		func() error {
			_, err := strconv.Atoi([]string{"64MB", "1e6", "0x1G", "256 "}[c.rnd.Intn(4)])
			return fmt.Errorf("max_memory: %w", err)
		},
		func() error {
			_, err := time.ParseDuration([]string{"5mins", "1d", "30 s", "1h30"}[c.rnd.Intn(4)])
			return fmt.Errorf("eviction_interval: %w", err)
		},
		func() error {
			_, err := os.Open(filepath.Join(filepath.Dir(path), "tls", fmt.Sprintf("peer-%d.pem", c.rnd.Intn(5))))
			return fmt.Errorf("tls.cert_file: %w", err)
		},
		func() error {
			_, err := netip.ParsePrefix([]string{"10.3.0.0/33", "10.3.0/16", "fd00::/129"}[c.rnd.Intn(3)])
			return fmt.Errorf("peers.allow: %w", err)
		},
	}
	var errs multiError
	first := c.rnd.Intn(len(settings))
	for i, n := 0, 2+c.rnd.Intn(3); i < n; i++ {
		errs = append(errs, settings[(first+i)%len(settings)]())
	}
	log.Fatalf("config: reload of %s failed: %v", path, errs)
}

// ---- K2: a quota check that panics with a plain struct value (not an error): the runtime prints its
// type and address; outside the workers' recover, the process dies.

type quotaBreach struct {
	Tenant string
	Used   int64
	Limit  int64
}

type limiter struct {
	limits map[string]int64
	used   map[string]int64
}

func (l *limiter) charge(tenant string, n int64) {
	l.used[tenant] += n
	if l.used[tenant] > l.limits[tenant] {
		panic(quotaBreach{Tenant: tenant, Used: l.used[tenant], Limit: l.limits[tenant]})
	}
}

func (c *Cache) chargeQuota() {
	tenant := fmt.Sprintf("t-%d", 100+c.rnd.Intn(9900))
	l := &limiter{limits: map[string]int64{tenant: int64(1000 * (1 + c.rnd.Intn(50)))}, used: map[string]int64{}}
	done := make(chan struct{})
	go func() {
		for l.used[tenant] >= 0 {
			l.charge(tenant, int64(1+c.rnd.Intn(4096)))
		}
		close(done)
	}()
	<-done
}

// ---- K3: the cleanup of a shard's stale segments; the failures are joined one per line (errors.Join's
// format, Go 1.20; written out here for Go 1.19) and logged with log.Printf; the process goes on.

type joinError []error

func (e joinError) Error() string {
	var b []byte
	for i, err := range e {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, err.Error()...)
	}
	return string(b)
}

func (c *Cache) cleanupShard() {
	shard := c.rnd.Intn(8)
	dir, _ := filepath.Abs(filepath.Join("data", fmt.Sprintf("shard-%d", shard)))
	os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "trash"), 0o755)
	var errs joinError
	seg := c.rnd.Intn(1000)
	for i, n := 0, 2+c.rnd.Intn(4); i < n; i++ {
		seg += 1 + c.rnd.Intn(20)
		path := filepath.Join(dir, fmt.Sprintf("seg-%06d", seg))
		switch c.rnd.Intn(3) {
		case 0: // a segment still being compacted: a directory with parts in it
			os.MkdirAll(filepath.Join(path, "part-0"), 0o755)
			errs = append(errs, os.Remove(path))
		case 1: // already removed by a concurrent cleanup
			errs = append(errs, os.Remove(path))
		default: // moved to the trash first, but gone
			errs = append(errs, os.Rename(path, filepath.Join(dir, "trash", filepath.Base(path))))
		}
	}
	log.Printf("snapshot: cleanup of shard %d incomplete: %v", shard, errs)
}

// ---- K4: a snapshot mapped read-only and then patched in place: the write faults, the runtime reports
// 'unexpected fault address' and 'fatal error: fault' with the signal, and the process dies.

func (c *Cache) patchSnapshotMap() {
	path, _ := filepath.Abs(filepath.Join("data", fmt.Sprintf("shard-%d.snap", c.rnd.Intn(8))))
	os.MkdirAll(filepath.Dir(path), 0o755)
	size := 4096 * (1 + c.rnd.Intn(4))
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		log.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		log.Fatal(err)
	}
	done := make(chan struct{})
	go func(at int) {
		patchHeader(data, at)
		close(done)
	}(c.rnd.Intn(size))
	<-done
}

//go:noinline
func patchHeader(data []byte, at int) {
	data[at] = 0x7f // read-only mapping: SIGSEGV
}
