package metrics

import "github.com/prometheus/client_golang/prometheus"

// newJobRuns is fracti_jobs_runs_total: the scheduled jobs' runs.
func newJobRuns() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "jobs", Name: "runs_total",
		Help: "Runs of scheduled jobs (package schedule) on this instance, by job and outcome (ok, error, panic).",
	}, []string{"job", "outcome"})
}

// JobRun counts one run of a scheduled job; it has the shape
// schedule.Observer takes.
func (m *Metrics) JobRun(job, outcome string) {
	if m == nil {
		return
	}
	m.jobRuns.WithLabelValues(job, outcome).Inc()
}
