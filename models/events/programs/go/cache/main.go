// gocache: a sharded in-memory cache with a worker pool, replication and compaction.
//
//	gocache SEED PLAN      (PLAN: one action code per line, run in order)
//
// Logs through the standard log package to stderr. LOGSIFT_LOG / LOGSIFT_MARKS: before each action the
// log file's size and the action code are appended to the marks file (the data set generator's labels).
package main

import (
	"bufio"
	"fmt"
	"log"
	"math/rand"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"example.com/gocache/store"
)

func mark(action string) {
	fi, err := os.Stat(os.Getenv("LOGSIFT_LOG"))
	if err != nil {
		panic(err)
	}
	f, err := os.OpenFile(os.Getenv("LOGSIFT_MARKS"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(f, "%d\t%s\n", fi.Size(), action)
	f.Close()
}

// Cache is the service: a ring of shards and a pool of workers that run jobs.
type Cache struct {
	rnd   *rand.Rand
	ring  *store.Ring
	jobs  chan func()
	done  chan struct{}
	mu    sync.Mutex
	peers []string
}

func newCache(rnd *rand.Rand, workers int) *Cache {
	c := &Cache{rnd: rnd, ring: store.NewRing(3+rnd.Intn(6), 2+rnd.Intn(3)), jobs: make(chan func()), done: make(chan struct{})}
	for i := 0; i < 5; i++ {
		c.peers = append(c.peers, fmt.Sprintf("10.3.%d.%d:7946", rnd.Intn(4), 1+rnd.Intn(250)))
	}
	for w := 1; w <= workers; w++ {
		go c.worker(w)
	}
	return c
}

// worker runs jobs; a panic in a job is recovered and logged with the goroutine's stack.
func (c *Cache) worker(id int) {
	for job := range c.jobs {
		c.runJob(id, job)
		c.done <- struct{}{}
	}
}

func (c *Cache) runJob(id int, job func()) {
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(error); ok && strings.HasPrefix(err.Error(), "shard") {
				log.Printf("worker %d: recovered: %v\n%s", id, r, debug.Stack())
				return
			}
			log.Printf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	job()
}

// do runs a job on the pool and waits for it.
func (c *Cache) do(job func()) {
	c.jobs <- job
	<-c.done
}

func (c *Cache) key() string {
	return fmt.Sprintf("%s:%d", []string{"user", "session", "cart", "sku", "quota"}[c.rnd.Intn(5)], c.rnd.Intn(1000000))
}

// ---- ordinary lines

func (c *Cache) compacted() {
	log.Printf("cache: shard %d compacted, %d keys, %d bytes freed", c.rnd.Intn(8), c.rnd.Intn(50000), c.rnd.Intn(1<<24))
}

func (c *Cache) served() {
	log.Printf("cache: GET %s hit=%t %dus", c.key(), c.rnd.Intn(3) > 0, 20+c.rnd.Intn(3000))
}

func (c *Cache) lagging() {
	log.Printf("replication: peer %s lag %dms", c.peers[c.rnd.Intn(len(c.peers))], 200+c.rnd.Intn(5000))
}

func (c *Cache) evicted() {
	log.Printf("cache: evicted %d keys from shard %d", 1+c.rnd.Intn(4000), c.rnd.Intn(8))
}

// ---- recovered panics (logged by the worker)

type session struct {
	user *struct{ id string }
}

func (c *Cache) touchSession() {
	sessions := map[string]*session{"s-1": {}}
	key := fmt.Sprintf("s-%d", 1+c.rnd.Intn(3))
	c.do(func() {
		s := sessions[key]
		if s == nil {
			s = &session{}
		}
		_ = s.user.id // nil pointer dereference
	})
}

func (c *Cache) decodeBatch() {
	depth := 1 + c.rnd.Intn(8)
	leaf := &store.Entry{Key: c.key(), Offset: -1 - c.rnd.Intn(1<<20)}
	e := leaf
	for i := 0; i < depth; i++ {
		e = &store.Entry{Key: fmt.Sprintf("batch-%d", i), Value: []byte("x"), Children: []*store.Entry{e}}
	}
	c.do(func() { store.Decode(e, 0) })
}

func (c *Cache) convert() {
	req := fmt.Sprintf("req-%08x", c.rnd.Uint32())
	var v interface{} = []string{"10", "ten", "1e3"}[c.rnd.Intn(3)]
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				log.Printf("request %s: panic: %v\n%s", req, r, debug.Stack())
			}
		}()
		ttl := v.(int)
		log.Printf("ttl %d", ttl)
	}()
	<-done
}

// ---- crashes (the process ends)

func (c *Cache) lookupCrash() {
	n := 4 + c.rnd.Intn(5) // more lookups than ring positions: one of them is out of range
	ring := store.NewRing(1+c.rnd.Intn(3), 1)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(pos int) {
			defer wg.Done()
			ring.Owner(pos).Get("k")
		}(i + c.rnd.Intn(3))
	}
	wg.Wait()
}

func (c *Cache) putCrash() {
	debug.SetTraceback("all")
	s := store.NewShard(c.rnd.Intn(8))
	e := &store.Entry{Key: c.key(), Offset: c.rnd.Intn(1 << 20)}
	// Outside the workers' recover: the panic ends the process, with every goroutine's stack.
	go s.Put(e)
	<-c.done
}

func (c *Cache) deadlock() {
	// Every worker waits for the next job, and the main goroutine for a reply nobody sends.
	c.jobs <- func() {}
	var mu sync.Mutex
	mu.Lock()
	c.mu.Lock()
	go func() { c.mu.Lock() }()
	mu.Lock()
}

func depthOf(e *store.Entry, seen int) int {
	if e == nil {
		return seen
	}
	return depthOf(e, seen+1) // a cyclic chain: never ends
}

func (c *Cache) overflow() {
	debug.SetMaxStack(1 << (18 + c.rnd.Intn(4)))
	depthOf(&store.Entry{Key: c.key()}, 0)
}

func (c *Cache) flushCrash() {
	shard := c.rnd.Intn(8)
	defer func() {
		if r := recover(); r != nil {
			panic(fmt.Sprintf("flush of shard %d failed after %d blocks", shard, 1+c.rnd.Intn(400)))
		}
	}()
	panic(fmt.Errorf("shard %d: checksum mismatch in block %d", shard, c.rnd.Intn(100000)))
}

func (c *Cache) checksumCrash() {
	size := 4 + c.rnd.Intn(12)
	block := make([]byte, size, size)
	declared := size + 1 + c.rnd.Intn(20)
	done := make(chan struct{})
	go func() {
		store.Checksum(block, declared)
		close(done)
	}()
	<-done
}

func main() {
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	seed, _ := strconv.ParseInt(os.Args[1], 10, 64)
	rnd := rand.New(rand.NewSource(seed))
	f, err := os.Open(os.Args[2])
	if err != nil {
		log.Fatal(err)
	}
	var plan []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			plan = append(plan, s)
		}
	}
	c := newCache(rnd, 2+rnd.Intn(6))
	actions := withHoldout(c, map[string]func(){ // H1-H4: holdout.go
		"L1": c.compacted, "L2": c.served, "L3": c.lagging, "L4": c.evicted,
		"F1": c.touchSession, "F2": c.decodeBatch, "F3": c.lookupCrash, "F4": c.putCrash, "F5": c.deadlock,
		"T1": c.overflow, "T2": c.convert, "T3": c.flushCrash, "T4": c.checksumCrash,
	})
	for _, a := range plan {
		mark(a)
		actions[a]()
	}
}
