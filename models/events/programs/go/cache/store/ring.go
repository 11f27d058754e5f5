// Package store holds the cache's shards and the consistent-hash ring that places keys on them.
package store

import (
	"fmt"
	"hash/fnv"
)

// Entry is a stored value; nested entries are decoded recursively.
type Entry struct {
	Key      string
	Value    []byte
	Children []*Entry
	Offset   int
}

// Shard is one partition of the cache.
type Shard struct {
	ID      int
	entries map[string]*Entry
	index   map[string]int
}

// NewShard returns a shard whose secondary index is created lazily (Rebuild).
func NewShard(id int) *Shard {
	return &Shard{ID: id, entries: map[string]*Entry{}}
}

// Put stores an entry and records its position in the secondary index.
func (s *Shard) Put(e *Entry) {
	s.entries[e.Key] = e
	s.index[e.Key] = e.Offset
}

// Get returns the entry of a key, or nil.
func (s *Shard) Get(key string) *Entry {
	return s.entries[key]
}

// Size is the number of keys.
func (s *Shard) Size() int {
	return len(s.entries)
}

// Ring places keys on shards.
type Ring struct {
	shards []*Shard
	points []int
}

// NewRing builds a ring of n shards with vnodes virtual points each.
func NewRing(n, vnodes int) *Ring {
	r := &Ring{}
	for i := 0; i < n; i++ {
		r.shards = append(r.shards, NewShard(i))
		for v := 0; v < vnodes; v++ {
			r.points = append(r.points, i)
		}
	}
	return r
}

// Owner returns the shard at a ring position (the position is not reduced modulo the ring size).
func (r *Ring) Owner(pos int) *Shard {
	return r.shards[r.points[pos]]
}

// Hash maps a key to a ring position.
func Hash(key string, size int) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(size))
}

// Decode walks nested entries; a negative offset is a corrupt entry.
func Decode(e *Entry, depth int) int {
	if e.Offset < 0 {
		panic(fmt.Errorf("shard %d: corrupt entry %q at offset %d", depth, e.Key, e.Offset))
	}
	n := len(e.Value)
	for _, c := range e.Children {
		n += Decode(c, depth+1)
	}
	return n
}

// Checksum verifies a block; the block header gives the payload length.
func Checksum(block []byte, declared int) uint32 {
	payload := block[4:declared]
	var sum uint32
	for _, b := range payload {
		sum = sum*31 + uint32(b)
	}
	return sum
}
