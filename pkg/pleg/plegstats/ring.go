package plegstats

// ring keeps the last len(buf) values added to it.
type ring[T any] struct {
	buf  []T
	next int
	full bool
}

func newRing[T any](n int) ring[T] {
	if n < 1 {
		n = 1
	}
	return ring[T]{buf: make([]T, n)}
}

// add stores v, overwriting the oldest value when full.
func (r *ring[T]) add(v T) {
	r.buf[r.next] = v
	r.next++
	if r.next == len(r.buf) {
		r.next = 0
		r.full = true
	}
}

// len returns how many values are kept.
func (r *ring[T]) len() int {
	if r.full {
		return len(r.buf)
	}
	return r.next
}

// at returns the i-th oldest kept value; i must be below len().
func (r *ring[T]) at(i int) *T {
	if r.full {
		i += r.next
		if i >= len(r.buf) {
			i -= len(r.buf)
		}
	}
	return &r.buf[i]
}

// values returns a copy of the kept values, oldest first.
func (r *ring[T]) values() []T {
	out := make([]T, 0, r.len())
	if r.full {
		out = append(out, r.buf[r.next:]...)
	}
	return append(out, r.buf[:r.next]...)
}
