// Package scrape reads a Prometheus metrics endpoint over HTTP in tests, as
// Prometheus would, and looks values up by name and labels.
package scrape

import (
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Metrics are the metric families of one scrape, by name.
type Metrics map[string]*dto.MetricFamily

// Get scrapes url (asking for the text format) and parses what it serves;
// it fails the test on any error.
func Get(t testing.TB, url string) Metrics {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape %s: status %d", url, resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	return families
}

// Labels select series: each named label must have the given value.
type Labels map[string]string

// Has reports whether the family name was served.
func (m Metrics) Has(name string) bool { return m[name] != nil }

// Sum is the total of the counter, gauge or untyped series of the family
// name that match labels (0 when none does).
func (m Metrics) Sum(name string, labels Labels) float64 {
	var sum float64
	for _, s := range m.series(name, labels) {
		switch {
		case s.Counter != nil:
			sum += s.Counter.GetValue()
		case s.Gauge != nil:
			sum += s.Gauge.GetValue()
		case s.Untyped != nil:
			sum += s.Untyped.GetValue()
		}
	}
	return sum
}

// Count is how many observations the histogram series of the family name
// that match labels hold between them.
func (m Metrics) Count(name string, labels Labels) uint64 {
	var n uint64
	for _, s := range m.series(name, labels) {
		n += s.GetHistogram().GetSampleCount()
	}
	return n
}

// HistogramSum is the sum of the observations of the histogram series of
// the family name that match labels.
func (m Metrics) HistogramSum(name string, labels Labels) float64 {
	var sum float64
	for _, s := range m.series(name, labels) {
		sum += s.GetHistogram().GetSampleSum()
	}
	return sum
}

// AtMost is how many observations of the matching histogram series were at
// most le (le must be one of the histogram's bucket bounds).
func (m Metrics) AtMost(name string, labels Labels, le float64) uint64 {
	var n uint64
	for _, s := range m.series(name, labels) {
		for _, b := range s.GetHistogram().GetBucket() {
			if b.GetUpperBound() == le {
				n += b.GetCumulativeCount()
			}
		}
	}
	return n
}

// LabelValues are the values the label takes across the family's series.
func (m Metrics) LabelValues(name, label string) []string {
	var values []string
	for _, s := range m.series(name, nil) {
		for _, l := range s.GetLabel() {
			if l.GetName() == label {
				values = append(values, l.GetValue())
			}
		}
	}
	return values
}

func (m Metrics) series(name string, labels Labels) []*dto.Metric {
	f := m[name]
	if f == nil {
		return nil
	}
	var out []*dto.Metric
	for _, s := range f.GetMetric() {
		if matches(s, labels) {
			out = append(out, s)
		}
	}
	return out
}

func matches(s *dto.Metric, want Labels) bool {
	have := map[string]string{}
	for _, l := range s.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}
