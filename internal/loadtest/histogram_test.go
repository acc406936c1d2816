package loadtest

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestBucketBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	values := []uint64{0, 1, 127, 128, 129, 255, 256, 257, 1000, 1 << 20, 1<<20 + 1, 123456789, 1<<36 - 1}
	for range 10000 {
		values = append(values, r.Uint64N(1<<36))
	}
	for _, v := range values {
		i := bucketOf(v)
		if i < 0 || i >= numBuckets {
			t.Fatalf("bucketOf(%d) = %d, want in [0, %d)", v, i, numBuckets)
		}
		hi := upperBound(i)
		if hi < v {
			t.Errorf("upperBound(bucketOf(%d)) = %d, want >= %d", v, hi, v)
		}
		if v >= subBuckets && hi-v > v/subBuckets {
			t.Errorf("bucket of %d reaches %d: wider than 1/%d of the value", v, hi, subBuckets)
		}
		if i > 0 && upperBound(i-1) >= v {
			t.Errorf("value %d also fits bucket %d below its own %d", v, i-1, i)
		}
	}
	if got := bucketOf(1 << 50); got != numBuckets-1 {
		t.Errorf("bucketOf(2^50) = %d, want the last bucket %d", got, numBuckets-1)
	}
}

func TestQuantiles(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name                string
		record              []time.Duration
		p50, p90, p99, maxD time.Duration
	}{
		{name: "empty"},
		{name: "one", record: []time.Duration{3 * ms}, p50: 3 * ms, p90: 3 * ms, p99: 3 * ms, maxD: 3 * ms},
		{name: "negative counts as zero", record: []time.Duration{-5}, p50: 0, p90: 0, p99: 0, maxD: 0},
		{
			name:   "1 to 100 ms",
			record: seq(1, 100, ms),
			p50:    50 * ms, p90: 90 * ms, p99: 99 * ms, maxD: 100 * ms,
		},
		{
			name:   "a long tail",
			record: append(repeat(1000, time.Microsecond), 2*time.Second),
			p50:    time.Microsecond, p90: time.Microsecond, p99: time.Microsecond, maxD: 2 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h histogram
			for _, d := range tt.record {
				h.record(d)
			}
			for _, q := range []struct {
				name      string
				got, want time.Duration
			}{
				{"p50", h.quantile(0.5), tt.p50},
				{"p90", h.quantile(0.9), tt.p90},
				{"p99", h.quantile(0.99), tt.p99},
				{"max", h.max, tt.maxD},
			} {
				// A quantile is its bucket's upper bound: never below the
				// true value, and above it by less than 1%.
				if q.got < q.want || q.got-q.want > q.want/100 {
					t.Errorf("%s = %v, want %v (within 1%% above)", q.name, q.got, q.want)
				}
			}
		})
	}
}

func TestMerge(t *testing.T) {
	var a, b, whole histogram
	for i, d := range seq(1, 1000, time.Microsecond) {
		whole.record(d)
		if i%3 == 0 {
			a.record(d)
		} else {
			b.record(d)
		}
	}
	a.merge(&b)
	if a.n != whole.n || a.max != whole.max || a.counts != whole.counts {
		t.Errorf("merged histogram (n %d, max %v) differs from the whole (n %d, max %v)", a.n, a.max, whole.n, whole.max)
	}
}

func seq(from, to int, unit time.Duration) []time.Duration {
	var out []time.Duration
	for i := from; i <= to; i++ {
		out = append(out, time.Duration(i)*unit)
	}
	return out
}

func repeat(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}
