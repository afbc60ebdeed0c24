package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// streamMetrics are how this instance reads the table's stream: its shard
// leases, the broker, and the fallback when the broker is down.
type streamMetrics struct {
	fallback   prometheus.Gauge
	fallbacks  prometheus.Counter
	brokerUp   atomic.Pointer[func() bool]
	leasesHeld atomic.Pointer[func() int]
}

func newStreamMetrics(reg *prometheus.Registry) *streamMetrics {
	s := &streamMetrics{
		fallback: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "live", Name: "stream_fallback",
			Help: "1 while this instance reads the table's stream itself because the broker (LIVE_BROKER) is down, else 0.",
		}),
		fallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "live", Name: "stream_fallbacks_total",
			Help: "Times this instance fell back to reading the table's stream itself because the broker was down.",
		}),
	}
	up := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: namespace, Subsystem: "live", Name: "broker_up",
		Help: "1 while the broker (LIVE_BROKER) answers, 0 while it does not; 1 without a broker (the embedded mode).",
	}, func() float64 {
		if f := s.brokerUp.Load(); f != nil && !(*f)() {
			return 0
		}
		return 1
	})
	held := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: namespace, Subsystem: "stream", Name: "leases_held",
		Help: "Shards of the table's stream this instance holds the lease of (and reads).",
	}, func() float64 {
		if f := s.leasesHeld.Load(); f != nil {
			return float64((*f)())
		}
		return 0
	})
	reg.MustRegister(s.fallback, s.fallbacks, up, held)
	return s
}

// LiveFallback says this instance started (on) or stopped reading the
// stream itself because of a broker outage.
func (m *Metrics) LiveFallback(on bool) {
	if m == nil {
		return
	}
	if on {
		m.stream.fallback.Set(1)
		m.stream.fallbacks.Inc()
	} else {
		m.stream.fallback.Set(0)
	}
}

// ObserveStream makes the gauges ask brokerUp whether the broker answers
// and held how many leases this instance holds (either may be nil).
func (m *Metrics) ObserveStream(brokerUp func() bool, held func() int) {
	if m == nil {
		return
	}
	if brokerUp != nil {
		m.stream.brokerUp.Store(&brokerUp)
	}
	if held != nil {
		m.stream.leasesHeld.Store(&held)
	}
}
