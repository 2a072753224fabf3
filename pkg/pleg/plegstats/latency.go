package plegstats

import (
	"slices"
	"time"
)

// Bucket is one cumulative histogram bucket: Count observations took at most
// UpperBoundSeconds. The implicit +Inf bucket is the summary's Count.
type Bucket struct {
	UpperBoundSeconds float64
	Count             uint64
}

// LatencySummary describes the durations of one kind of operation: totals
// and a histogram since start, percentiles over the most recent Window
// observations.
type LatencySummary struct {
	Count            uint64
	Errors           uint64
	SumSeconds       float64
	LastSeconds      float64
	MaxSeconds       float64
	Window           int
	P50Seconds       float64
	P90Seconds       float64
	P99Seconds       float64
	WindowMaxSeconds float64
	Buckets          []Bucket
}

// latency accumulates durations. Not safe for concurrent use.
type latency struct {
	count, errors  uint64
	sum, last, max time.Duration
	// bounds are the histogram's upper bounds in seconds (buckets.go),
	// buckets the observations of each bucket alone.
	bounds  []float64
	buckets []uint64
	recent  ring[time.Duration]
}

func newLatency(window int, bounds []float64) latency {
	return latency{bounds: bounds, buckets: make([]uint64, len(bounds)), recent: newRing[time.Duration](window)}
}

// observe records one duration; failed tells whether the operation failed.
func (l *latency) observe(d time.Duration, failed bool) {
	l.count++
	if failed {
		l.errors++
	}
	l.sum += d
	l.last = d
	l.max = max(l.max, d)
	for i, b := range l.bounds {
		if d.Seconds() <= b {
			l.buckets[i]++
			break
		}
	}
	l.recent.add(d)
}

// summary returns the JSON-friendly view of l.
func (l *latency) summary() LatencySummary {
	s := LatencySummary{
		Count:       l.count,
		Errors:      l.errors,
		SumSeconds:  l.sum.Seconds(),
		LastSeconds: l.last.Seconds(),
		MaxSeconds:  l.max.Seconds(),
		Buckets:     make([]Bucket, len(l.bounds)),
	}
	var cum uint64
	for i, b := range l.bounds {
		cum += l.buckets[i]
		s.Buckets[i] = Bucket{UpperBoundSeconds: b, Count: cum}
	}
	recent := l.recent.values()
	s.Window = len(recent)
	if len(recent) > 0 {
		slices.Sort(recent)
		s.P50Seconds = percentile(recent, 0.50).Seconds()
		s.P90Seconds = percentile(recent, 0.90).Seconds()
		s.P99Seconds = percentile(recent, 0.99).Seconds()
		s.WindowMaxSeconds = recent[len(recent)-1].Seconds()
	}
	return s
}

// percentile returns the nearest-rank percentile p of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(p*float64(len(sorted))+0.999999) - 1
	rank = max(0, min(rank, len(sorted)-1))
	return sorted[rank]
}
