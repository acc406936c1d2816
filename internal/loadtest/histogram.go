package loadtest

import (
	"math/bits"
	"time"
)

// subBuckets is the number of buckets per power of two. Every recorded
// duration lands in a bucket at most 1/subBuckets of its value wide, so a
// quantile is exact to within 0.8%, while the whole histogram stays a fixed
// few kilobytes however many requests a run makes.
const (
	subBits    = 7
	subBuckets = 1 << subBits
	// maxExp covers durations below 2^(maxExp+subBits+1) ns (about two
	// minutes, beyond any request timeout); anything longer is clamped into
	// the last bucket and still counts in the maximum exactly.
	maxExp     = 36 - subBits
	numBuckets = (maxExp + 2) * subBuckets
)

// histogram counts durations in log-linear buckets. The zero value is
// empty and ready to use. It is not safe for concurrent use: each worker
// keeps its own and the run merges them.
type histogram struct {
	counts [numBuckets]uint64
	n      uint64
	max    time.Duration
}

// bucketOf returns the bucket index of v nanoseconds.
func bucketOf(v uint64) int {
	if v < subBuckets {
		return int(v)
	}
	exp := bits.Len64(v) - subBits - 1 // v>>exp is in [subBuckets, 2*subBuckets)
	if exp > maxExp {
		return numBuckets - 1
	}
	return (exp+1)*subBuckets + int(v>>exp) - subBuckets
}

// upperBound returns the largest duration, in nanoseconds, bucket i holds.
func upperBound(i int) uint64 {
	if i < subBuckets {
		return uint64(i)
	}
	exp := i/subBuckets - 1
	mant := uint64(i%subBuckets + subBuckets)
	return (mant+1)<<exp - 1
}

// record adds one duration; negative durations count as zero.
func (h *histogram) record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(uint64(d))]++
	h.n++
	if d > h.max {
		h.max = d
	}
}

// merge adds every count of o to h.
func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	if o.max > h.max {
		h.max = o.max
	}
}

// quantile returns the duration at or below which a fraction q (0 to 1) of
// the recorded durations lie, rounded up to its bucket's upper bound and
// never above the largest duration recorded. It returns 0 when nothing was
// recorded.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.5)
	rank = max(rank, 1)
	rank = min(rank, h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(time.Duration(upperBound(i)), h.max)
		}
	}
	return h.max
}
