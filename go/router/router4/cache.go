package router4

import (
	"hash/maphash"
	"sync"

	"havlak-lab/go/router/route"
)

// cacheSize bounds each shard: paths with parameters are countless, so a
// full shard is emptied and fills again with the paths in use.
const cacheSize = 4096 / shards

// shards is how many maps the cache is cut into, a power of two.
const shards = 64

// maxCachedKey bounds each entry: a longer method and path (a hostile
// client's, most likely) is looked up in the trie every time, so that the
// cache's memory is bounded by its entries times this, not by what
// clients send. Parameter values are parts of the path.
const maxCachedKey = 1024

type key struct{ method, path string }

type entry struct {
	res    route.Result
	params route.Params
}

// shard is one map behind its own mutex, padded to a cache line of its
// own so that two shards' locks never share one.
type shard struct {
	mu      sync.Mutex
	entries map[key]entry
	_       [64 - 16]byte
}

// cache is every lookup's answer, in shards by a hash of the path.
type cache struct {
	seed   maphash.Seed
	shards *[shards]shard
}

func newCache() cache {
	c := cache{seed: maphash.MakeSeed(), shards: new([shards]shard)}
	for i := range c.shards {
		c.shards[i].entries = make(map[key]entry, cacheSize)
	}
	return c
}

func (c *cache) shard(k key) *shard {
	return &c.shards[maphash.String(c.seed, k.path)&(shards-1)]
}

// get copies k's cached answer into p.
func (c *cache) get(k key, p *route.Params) (route.Result, bool) {
	s := c.shard(k)
	s.mu.Lock()
	e, ok := s.entries[k]
	s.mu.Unlock()
	if !ok {
		return route.Result{}, false
	}
	*p = e.params
	return e.res, true
}

// put caches k's answer.
func (c *cache) put(k key, res route.Result, p *route.Params) {
	if len(k.method)+len(k.path) > maxCachedKey {
		return
	}
	s := c.shard(k)
	s.mu.Lock()
	if len(s.entries) >= cacheSize {
		clear(s.entries)
	}
	s.entries[k] = entry{res, *p}
	s.mu.Unlock()
}

// reset empties the cache.
func (c *cache) reset() {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		clear(s.entries)
		s.mu.Unlock()
	}
}
