package main

import (
	"math/bits"
	"time"
)

// histogram counts durations in microsecond buckets: exact below 1024 µs,
// then 64 buckets per power of two (under 1.6 % error).
type histogram struct {
	counts []uint64
	n      uint64
	sum    time.Duration
	max    time.Duration
}

const histSub = 64

func newHistogram() *histogram { return &histogram{counts: make([]uint64, 1024+histSub*40)} }

func bucketOf(us uint64) int {
	if us < 1024 {
		return int(us)
	}
	exp := bits.Len64(us) - 1 // >= 10
	sub := (us >> (exp - 6)) & (histSub - 1)
	return 1024 + (exp-10)*histSub + int(sub)
}

// lowerBound is the smallest value of bucket i, in microseconds.
func lowerBound(i int) uint64 {
	if i < 1024 {
		return uint64(i)
	}
	exp := (i-1024)/histSub + 10
	sub := uint64((i - 1024) % histSub)
	return (1 << exp) | sub<<(exp-6)
}

func (h *histogram) add(d time.Duration) {
	if d < 0 {
		d = 0
	}
	i := min(bucketOf(uint64(d/time.Microsecond)), len(h.counts)-1)
	h.counts[i]++
	h.n++
	h.sum += d
	h.max = max(h.max, d)
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// quantile returns the lower bound of the bucket holding quantile q.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q * float64(h.n))
	if rank >= h.n {
		rank = h.n - 1
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen > rank {
			return time.Duration(lowerBound(i)) * time.Microsecond
		}
	}
	return h.max
}

func (h *histogram) mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}
