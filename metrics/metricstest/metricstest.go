// Package metricstest reads what a /metrics endpoint serves, for tests:
// it scrapes over HTTP and parses Prometheus's text format with the
// Prometheus project's own parser.
package metricstest

import (
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are the metric families of one scrape, by name.
type Families map[string]*dto.MetricFamily

// Scrape GETs url and parses the answer, failing t unless it is a 200 in
// the text format.
func Scrape(t testing.TB, url string) Families {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d", url, resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return fams
}

// Value returns the value of the first series of family name whose labels
// include want (a counter's or gauge's value, a histogram's sample count)
// and whether there is one.
func (f Families) Value(name string, want map[string]string) (float64, bool) {
	fam := f[name]
	if fam == nil {
		return 0, false
	}
next:
	for _, m := range fam.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// Labels calls fn with every label of every series, for checks that no
// label carries what it must not.
func (f Families) Labels(fn func(family, name, value string)) {
	for name, fam := range f {
		for _, m := range fam.Metric {
			for _, l := range m.Label {
				fn(name, l.GetName(), l.GetValue())
			}
		}
	}
}
