package journal

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are a journal's Prometheus metrics: its content and bounds from
// its Stats when scraped, and the duration of each commit.
type Metrics struct {
	j       *Journal
	commits prometheus.Histogram

	bytes, events, oldest, writeErrors, dropped *prometheus.Desc
}

// NewMetrics returns j's metrics, and times j's commits from now on.
func NewMetrics(j *Journal) *Metrics {
	m := &Metrics{
		j: j,
		commits: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "podsrc_journal_commit_duration_seconds",
			Help:    "Duration of each commit of the journal: writing the events appended since the last one and the fsync that makes them durable.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}),
		bytes:       prometheus.NewDesc("podsrc_journal_bytes", "Bytes of the events' records in the journal, which --journal-max-bytes bounds.", nil, nil),
		events:      prometheus.NewDesc("podsrc_journal_events", "Events in the journal.", nil, nil),
		oldest:      prometheus.NewDesc("podsrc_journal_oldest_event_timestamp_seconds", "Time of the oldest event in the journal (0 when it holds none).", nil, nil),
		writeErrors: prometheus.NewDesc("podsrc_journal_write_errors_total", "Commits of the journal that failed; their events are missing from it.", nil, nil),
		dropped:     prometheus.NewDesc("podsrc_journal_dropped_events_total", "Events dropped from the journal, by the bound that dropped them: size (--journal-max-bytes), age (--journal-max-age) or backlog (the writer fell too far behind).", []string{"bound"}, nil),
	}
	j.mu.Lock()
	j.commits = m.commits
	j.mu.Unlock()
	return m
}

// Collectors returns the metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.commits, statsCollector{m}}
}

// statsCollector reports a journal's Stats.
type statsCollector struct{ m *Metrics }

// Describe implements prometheus.Collector.
func (c statsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.m.bytes
	ch <- c.m.events
	ch <- c.m.oldest
	ch <- c.m.writeErrors
	ch <- c.m.dropped
}

// Collect implements prometheus.Collector: the journal's stats now.
func (c statsCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.m.j.Stats()
	ch <- prometheus.MustNewConstMetric(c.m.bytes, prometheus.GaugeValue, float64(s.Bytes))
	ch <- prometheus.MustNewConstMetric(c.m.events, prometheus.GaugeValue, float64(s.Events))
	var oldest float64
	if !s.Oldest.IsZero() {
		oldest = float64(s.Oldest.UnixNano()) / 1e9
	}
	ch <- prometheus.MustNewConstMetric(c.m.oldest, prometheus.GaugeValue, oldest)
	ch <- prometheus.MustNewConstMetric(c.m.writeErrors, prometheus.CounterValue, float64(s.WriteErrors))
	for _, bound := range []string{BoundSize, BoundAge, BoundBacklog} {
		ch <- prometheus.MustNewConstMetric(c.m.dropped, prometheus.CounterValue, float64(s.Dropped[bound]), bound)
	}
}
