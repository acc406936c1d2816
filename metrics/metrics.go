// Package metrics is registryd's Prometheus instrumentation: one Registry
// holds every family the server exports at GET /metrics (the names are
// listed in docs/operations.md with the queries of a small dashboard), and
// the other packages report to it through interfaces they declare
// themselves, so that only this package imports the Prometheus client.
//
// Every label takes its values from a closed set (route templates, status
// codes, known event names), never from raw request text, so a client
// cannot make the series grow.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/registryd/registryd/internal/buildinfo"
)

// Namespace prefixes every registryd family.
const Namespace = "registryd"

// Registry holds registryd's metrics. It is safe for concurrent use.
type Registry struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	webhooks  *prometheus.CounterVec
	jobs      *prometheus.CounterVec
	reassess  prometheus.Counter
	reassessG prometheus.Gauge

	// series keeps each request series once looked up (seriesKey to
	// *requestSeries); its keys are as closed a set as the labels.
	series sync.Map

	badgeHits, badgeMisses atomic.Uint64
	reportLookups          atomic.Pointer[func() (hits, misses uint64)]
}

// New returns a Registry describing build, with the Go runtime's and the
// process's own collectors.
func New(build buildinfo.Info) *Registry {
	m := &Registry{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered, by method, route template and status code.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time from a request's arrival to the end of its answer, by method, route template and status code.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route", "status"}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "webhook", Name: "deliveries_total",
			Help: "GitHub webhook deliveries received, by event and outcome (queued, ignored, duplicate, or why it was refused).",
		}, []string{"event", "outcome"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "jobs", Name: "runs_total",
			Help: "Background job runs finished, by kind and outcome (completed, retry, cancelled, snoozed).",
		}, []string{"kind", "outcome"}),
		reassess: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "reassess", Name: "reports_total",
			Help: "Stored reports rendered again under the running ruleset.",
		}),
		reassessG: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Subsystem: "reassess", Name: "running",
			Help: "1 while this process re-assesses stored reports after a ruleset change, else 0.",
		}),
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "build_info",
		Help: "Always 1; the labels say which build is running.",
		ConstLabels: prometheus.Labels{
			"version": build.Version, "revision": build.Revision, "modified": strconv.FormatBool(build.Modified),
			"go_version": build.GoVersion,
		},
	})
	info.Set(1)
	caches := collector{[]*prometheus.Desc{cacheLookups}, m.collectCaches}
	m.reg.MustRegister(m.requests, m.latency, m.webhooks, m.jobs, m.reassess, m.reassessG, info, caches,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

var cacheLookups = prometheus.NewDesc(Namespace+"_cache_lookups_total",
	"Lookups of the in-memory caches (report: published reports, kept on PostgreSQL; badge: rendered badges), by result.",
	[]string{"cache", "result"}, nil)

func (m *Registry) collectCaches(ch chan<- prometheus.Metric) {
	var rh, rm uint64
	if f := m.reportLookups.Load(); f != nil {
		rh, rm = (*f)()
	}
	for _, c := range []struct {
		cache, result string
		n             uint64
	}{
		{"badge", "hit", m.badgeHits.Load()}, {"badge", "miss", m.badgeMisses.Load()},
		{"report", "hit", rh}, {"report", "miss", rm},
	} {
		ch <- prometheus.MustNewConstMetric(cacheLookups, prometheus.CounterValue, float64(c.n), c.cache, c.result)
	}
}

// Handler serves the metrics in Prometheus's text format (and OpenMetrics
// when asked), compressed when the scraper accepts it.
func (m *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// knownMethods are the methods counted by name; any other is "OTHER".
var knownMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodDelete: true, http.MethodOptions: true, http.MethodPatch: true,
}

// ObserveRequest counts one answered request and its duration. route must
// be a route template or a fixed label, never a raw path.
func (m *Registry) ObserveRequest(method, route string, status int, elapsed time.Duration) {
	if !knownMethods[method] {
		method = "OTHER"
	}
	k := seriesKey{method, route, status}
	v, ok := m.series.Load(k)
	if !ok {
		code := strconv.Itoa(status)
		v, _ = m.series.LoadOrStore(k, &requestSeries{
			count:   m.requests.WithLabelValues(method, route, code),
			latency: m.latency.WithLabelValues(method, route, code),
		})
	}
	rs := v.(*requestSeries)
	rs.count.Inc()
	rs.latency.Observe(elapsed.Seconds())
}

// seriesKey names the series of one kind of answered request.
type seriesKey struct {
	method, route string
	status        int
}

// requestSeries is the counter and the histogram of one kind of answered
// request, looked up by label values once rather than at every request.
type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// BadgeCache counts one lookup of the rendered-badge cache.
func (m *Registry) BadgeCache(hit bool) {
	if hit {
		m.badgeHits.Add(1)
	} else {
		m.badgeMisses.Add(1)
	}
}

// WatchReportCache reports the published-report cache: lookups is called
// at every scrape and returns the store's running totals. Without it the
// report cache counts zero.
func (m *Registry) WatchReportCache(lookups func() (hits, misses uint64)) {
	m.reportLookups.Store(&lookups)
}

// knownEvents are the webhook events counted by name; any other is
// "other": the event header is the sender's word, and before the
// signature is checked it may be anyone's.
var knownEvents = map[string]bool{"ping": true, "pull_request": true, "push": true}

// WebhookDelivery counts one delivery with its outcome.
func (m *Registry) WebhookDelivery(event, outcome string) {
	if !knownEvents[event] {
		event = "other"
	}
	m.webhooks.WithLabelValues(event, outcome).Inc()
}

// JobRun counts one finished run of a background job.
func (m *Registry) JobRun(kind, outcome string) { m.jobs.WithLabelValues(kind, outcome).Inc() }

// Reassessed counts n reports rendered again.
func (m *Registry) Reassessed(n int) { m.reassess.Add(float64(n)) }

// Reassessing says whether a re-assessment is under way.
func (m *Registry) Reassessing(on bool) {
	if on {
		m.reassessG.Set(1)
	} else {
		m.reassessG.Set(0)
	}
}

// Pool is one database connection pool at one moment.
type Pool struct {
	// Name tells the pools of one database apart ("main"; SQLite has a
	// "read" and a "write" pool).
	Name string
	// InUse and Idle count the open connections; Max is the pool's bound
	// (0: none).
	InUse, Idle, Max int
}

var (
	poolConns = prometheus.NewDesc(Namespace+"_db_connections", "Open database connections, by pool and state (in_use, idle).",
		[]string{"pool", "state"}, nil)
	poolMax = prometheus.NewDesc(Namespace+"_db_connections_max", "The most connections a pool opens (0: no bound).",
		[]string{"pool"}, nil)
)

// WatchPools reports the database connection pools: stats is called at
// every scrape. Call it once.
func (m *Registry) WatchPools(stats func() []Pool) {
	m.reg.MustRegister(collector{[]*prometheus.Desc{poolConns, poolMax}, func(ch chan<- prometheus.Metric) {
		for _, p := range stats() {
			ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(p.InUse), p.Name, "in_use")
			ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(p.Idle), p.Name, "idle")
			ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(p.Max), p.Name)
		}
	}})
}

var queueDepth = prometheus.NewDesc(Namespace+"_jobs_queued", "Background jobs waiting or running, by state (available, scheduled, retryable, running).",
	[]string{"state"}, nil)

// queueTimeout bounds the query behind one scrape of the queue depth.
const queueTimeout = 2 * time.Second

// WatchQueue reports the job queue's depth: depth is called at every
// scrape and returns the number of jobs in each state. A failing call
// reports an error to the scraper for this family alone. Call it once.
func (m *Registry) WatchQueue(depth func(ctx context.Context) (map[string]int, error)) {
	m.reg.MustRegister(collector{[]*prometheus.Desc{queueDepth}, func(ch chan<- prometheus.Metric) {
		ctx, cancel := context.WithTimeout(context.Background(), queueTimeout)
		defer cancel()
		counts, err := depth(ctx)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(queueDepth, err)
			return
		}
		for state, n := range counts {
			ch <- prometheus.MustNewConstMetric(queueDepth, prometheus.GaugeValue, float64(n), state)
		}
	}})
}

// collector is a prometheus.Collector of fixed descriptions whose values
// are read at each scrape. Describe does not collect, so registering one
// runs no query.
type collector struct {
	descs   []*prometheus.Desc
	collect func(ch chan<- prometheus.Metric)
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }
