package web

import "sync"

// A recentCache keeps the values made last, at most size of them, by
// key; the oldest made goes first. What a page makes at a cost, from
// inputs that do not change (results, named by their sha256), is made
// once while people ask for it: pprof's UI of a profile (profiles.go), an
// attribution (attribution.go).
type recentCache[V any] struct {
	mu     sync.Mutex
	size   int
	order  []string
	values map[string]V
}

func newRecentCache[V any](size int) *recentCache[V] {
	return &recentCache[V]{size: size, values: map[string]V{}}
}

func (c *recentCache[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.values[key]
	return v, ok
}

// put keeps v as key's, unless key has one already.
func (c *recentCache[V]) put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.values[key]; ok {
		return
	}
	if len(c.order) == c.size {
		delete(c.values, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, key)
	c.values[key] = v
}
