package kafka

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetcher fetches the partitions the reader assigns with Fetch requests of
// its own and decodes their record batches straight into Arrow chunks
// (fetchDecoder), where franz-go's consumer builds a kgo.Record for every
// record first, sizes it twice for its buffered-bytes gauges, and the
// reader then copies and recycles it (bench windows, 10M events: about a
// third of the query's CPU). franz-go still owns the connections, the
// request versions and the broker list: every request goes through the
// client. Written by hand because franz-go has no hook that hands out a
// fetch's record batches undecoded.
//
// One goroutine per leader broker keeps one Fetch in flight or one
// response waiting to be polled, as franz-go's consumer does; the
// partitions of a response are decoded in parallel, each by its own
// decoder. Retriable errors (a leader moving, a broker restarting, a
// connection refused) are retried after a metadata refresh and never
// reach the reader, which notices a broker that stays away by its
// partitions stalling, and asks stuck for the error of a partition that
// stays unfetchable. An offset below the log start moves to the log
// start (the reader then reports the gap as data loss); an offset above
// the log end is data loss as kgo.ErrDataLoss reports it; a topic id
// the topic no longer has is a *topicRecreatedError; other errors are
// handed to the reader with the partition, which stops fetching it until
// it is added again.
type fetcher struct {
	cl            *kgo.Client
	adm           *kadm.Client
	readCommitted bool
	maxBytes      int32
	partBytes     int32
	maxWait       time.Duration
	decompressor  kgo.Decompressor

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu sync.Mutex
	// wake is closed (and replaced) whenever the state changes: a
	// partition is added, removed, paused or resumed, results arrive or
	// are taken, leaders are known.
	wake  chan struct{}
	parts map[string]map[int32]*fetchPart
	// topicIDs are the topics' ids from the last metadata, for Fetch v13+.
	topicIDs map[string][16]byte
	// loops are the broker goroutines by broker id.
	loops map[int32]*brokerLoop
	// results are the responses not polled yet.
	results []partFetch
	// refreshing says a metadata request is in flight; lastRefresh when the
	// last one ended.
	refreshing  bool
	lastRefresh time.Time
	closed      bool
	// gens numbers the partitions added: each add takes the next number,
	// never one a partition removed before had.
	gens uint64

	// decoders are the idle decoders; prune sets the columns they build,
	// maxRows the rows of their chunks.
	decoders []*fetchDecoder
	read     []bool
	maxRows  int

	// backoff is how long a broker loop waits after its fails-th failed
	// request in a row: the client's kgo.RetryBackoffFn (by default 250ms
	// doubling up to 5s, jittered), so that a broker away for minutes is
	// not asked four times a second.
	backoff func(fails int) time.Duration

	// decoded counts the data records decoded, those of responses dropped
	// (a partition removed or added again meanwhile) included.
	decoded atomic.Int64
}

// fetchPart is one assigned partition.
type fetchPart struct {
	offset int64 // where the next fetch starts
	// epoch is the leader epoch of the record batch that ended at offset,
	// -1 when unknown: sent as LastFetchedEpoch, so that the leader says
	// when its log diverged below offset (KIP-320).
	epoch  int32
	paused bool
	// leader is the broker to fetch from, -1 until metadata says.
	leader int32
	// inflight says a fetch of the partition is in flight or decoding.
	inflight bool
	// failed says the partition had an error the reader was told about:
	// it is not fetched until added again.
	failed bool
	// retryErr is the retriable error the partition's fetches have failed
	// with since retrySince (nil once a fetch succeeds): the reader fails
	// a batch that waits on it too long (see stuck).
	retryErr   error
	retrySince time.Time
	// gen is the fetcher's number for this add of the partition, unique
	// over the fetcher's life: a response to a fetch of another gen (the
	// partition was added again, or removed and added back) is dropped.
	gen uint64
}

// brokerLoop is the goroutine fetching from one broker; unpolled counts
// its results waiting in results: it fetches again once there are none
// (polled, or dropped with their partition).
type brokerLoop struct {
	id       int32
	unpolled int
	// fails counts the loop's requests failed in a row; only its own
	// goroutine uses it.
	fails int
}

// partFetch is what one fetch brought for one partition.
type partFetch struct {
	topic     string
	partition int32
	// err is a fetch error for the partition (kgo.ErrDataLoss for a log
	// truncated below the fetch offset); chunks may still follow it.
	err error
	// logStart is the partition's log start offset when the fetch ran.
	logStart int64
	// chunks hold the data records from the fetch offset on, ascending;
	// the last one ends at next.
	chunks []*chunk
	// first is the offset of the first record (data or control) at or
	// after the fetch offset, next the offset after the last one covered;
	// both -1 when the fetch brought nothing.
	first, next int64
	// loop is the broker loop that fetched it, waiting until it is polled
	// or dropped.
	loop *brokerLoop
}

func newFetcher(cl *kgo.Client, cfg *config) *fetcher {
	ctx, cancel := context.WithCancel(context.Background())
	return &fetcher{
		cl:            cl,
		adm:           kadm.NewClient(cl),
		readCommitted: cfg.readCommitted,
		maxBytes:      cfg.fetchMaxBytes,
		partBytes:     cfg.fetchPartBytes,
		maxWait:       cfg.fetchMaxWait,
		decompressor:  kgo.DefaultDecompressor(),
		ctx:           ctx,
		cancel:        cancel,
		wake:          make(chan struct{}),
		parts:         make(map[string]map[int32]*fetchPart),
		topicIDs:      make(map[string][16]byte),
		loops:         make(map[int32]*brokerLoop),
		maxRows:       batchMaxRows,
		backoff:       retryBackoff(cl),
	}
}

// retryBackoff returns cl's kgo.RetryBackoffFn.
func retryBackoff(cl *kgo.Client) func(int) time.Duration {
	if fn, ok := cl.OptValue(kgo.RetryBackoffFn).(func(int) time.Duration); ok && fn != nil {
		return fn
	}
	return func(int) time.Duration { return 250 * time.Millisecond }
}

// changed wakes every waiter. The caller holds f.mu.
func (f *fetcher) changed() {
	close(f.wake)
	f.wake = make(chan struct{})
}

// add starts fetching the partitions at the given offsets, dropping what
// was fetched or is in flight for them.
func (f *fetcher) add(offsets map[string]map[int32]int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for t, ps := range offsets {
		if f.parts[t] == nil {
			f.parts[t] = make(map[int32]*fetchPart)
		}
		for p, off := range ps {
			fp := f.parts[t][p]
			if fp == nil {
				fp = &fetchPart{leader: -1}
				f.parts[t][p] = fp
			}
			f.gens++
			fp.gen = f.gens
			fp.offset, fp.epoch, fp.paused, fp.failed, fp.inflight = off, -1, false, false, false
			fp.retryErr = nil
			f.dropResults(t, p)
		}
	}
	f.changed()
	f.ensureMetadata()
}

// remove stops fetching the partitions and drops what was fetched for them.
func (f *fetcher) remove(parts map[string][]int32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for t, ps := range parts {
		for _, p := range ps {
			if fp := f.parts[t][p]; fp != nil {
				delete(f.parts[t], p)
				f.dropResults(t, p)
			}
		}
	}
	f.changed()
}

// pause stops fetching the partitions; what was fetched is still polled.
func (f *fetcher) pause(parts map[string][]int32) { f.setPaused(parts, true) }

// resume fetches paused partitions again from where they stopped.
func (f *fetcher) resume(parts map[string][]int32) { f.setPaused(parts, false) }

func (f *fetcher) setPaused(parts map[string][]int32, paused bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for t, ps := range parts {
		for _, p := range ps {
			if fp := f.parts[t][p]; fp != nil {
				fp.paused = paused
				fp.retryErr = nil // counted from the next fetch
			}
		}
	}
	f.changed()
}

// purge forgets what the fetcher knows of topic's metadata (its id and
// leaders), for a topic deleted and created again; the partitions added
// next are looked up afresh.
func (f *fetcher) purge(topic string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.topicIDs, topic)
	for _, fp := range f.parts[topic] {
		fp.leader = -1
	}
	f.lastRefresh = time.Time{}
	f.changed()
	f.ensureMetadata()
}

// prune sets the columns the decoders build (see batchBuilder.prune).
func (f *fetcher) prune(read []bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.read = append([]bool(nil), read...)
	for _, d := range f.decoders {
		d.b.prune(f.read)
	}
}

// dropResults releases the unpolled results of one partition. The caller
// holds f.mu.
func (f *fetcher) dropResults(t string, p int32) {
	keep := f.results[:0]
	for _, r := range f.results {
		if r.topic == t && r.partition == p {
			releaseChunks(r.chunks)
			if r.loop != nil {
				r.loop.unpolled--
			}
			continue
		}
		keep = append(keep, r)
	}
	clear(f.results[len(keep):])
	f.results = keep
}

// poll returns the responses waiting, or waits for one until ctx ends.
func (f *fetcher) poll(ctx context.Context) ([]partFetch, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.results) == 0 {
		if f.closed {
			return nil, kgo.ErrClientClosed
		}
		wake := f.wake
		f.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
		}
		f.mu.Lock()
		if ctx.Err() != nil {
			return nil, nil
		}
	}
	out := f.results
	f.results = nil
	for _, l := range f.loops {
		l.unpolled = 0
	}
	f.changed()
	return out, nil
}

// close stops every goroutine and drops what was fetched.
func (f *fetcher) close() {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.closed = true
	for _, r := range f.results {
		releaseChunks(r.chunks)
	}
	f.results = nil
	f.changed()
	f.mu.Unlock()
	f.cancel()
	f.wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range f.decoders {
		d.b.release()
	}
	f.decoders = nil
}

// ensureMetadata starts a metadata refresh when a fetchable partition has
// no known leader and none is in flight. The caller holds f.mu.
func (f *fetcher) ensureMetadata() {
	if f.refreshing || f.closed {
		return
	}
	var topics []string
	for t, ps := range f.parts {
		for _, fp := range ps {
			if fp.leader < 0 && !fp.failed {
				topics = append(topics, t)
				break
			}
		}
	}
	if len(topics) == 0 {
		return
	}
	f.refreshing = true
	wait := time.Until(f.lastRefresh.Add(metadataMinAge))
	f.wg.Add(1)
	go f.refresh(topics, wait)
}

// refresh looks up the leaders and ids of topics after wait, and starts a
// broker loop for each leader without one.
func (f *fetcher) refresh(topics []string, wait time.Duration) {
	defer f.wg.Done()
	if wait > 0 {
		select {
		case <-time.After(wait):
		case <-f.ctx.Done():
		}
	}
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	var resp *kmsg.MetadataResponse
	if f.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
		r, err := req.RequestWith(ctx, f.cl)
		cancel()
		if err == nil {
			resp = r
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refreshing = false
	f.lastRefresh = time.Now()
	if f.closed {
		return
	}
	if resp != nil {
		for _, rt := range resp.Topics {
			if rt.Topic == nil || rt.ErrorCode != 0 {
				continue
			}
			t := *rt.Topic
			if id, ok := f.topicIDs[t]; !ok || id == ([16]byte{}) {
				// A known id is kept, also when the topic now has another
				// (deleted and created again): fetching by it then fails
				// with UNKNOWN_TOPIC_ID and the recreation is noticed,
				// rather than the new topic's records being fetched at the
				// old topic's offsets. purge forgets it.
				f.topicIDs[t] = rt.TopicID
			}
			for _, rp := range rt.Partitions {
				fp := f.parts[t][rp.Partition]
				if fp == nil || rp.ErrorCode != 0 || rp.Leader < 0 {
					continue
				}
				fp.leader = rp.Leader
				if f.loops[rp.Leader] == nil {
					l := &brokerLoop{id: rp.Leader}
					f.loops[rp.Leader] = l
					f.wg.Add(1)
					go f.run(l)
				}
			}
		}
	}
	f.changed()
	// Partitions still without a leader (a topic not created yet, a
	// broker away) are looked up again after metadataMinAge.
	f.ensureMetadata()
}

// fetchSpec is one partition of a Fetch request, with the gen it was
// built for.
type fetchSpec struct {
	topic     string
	topicID   [16]byte // the id fetched by (Fetch v13+)
	partition int32
	offset    int64
	epoch     int32
	gen       uint64
}

// run is broker l's loop: fetch the partitions it leads, decode, hand the
// results to poll, wait until they are polled, again.
func (f *fetcher) run(l *brokerLoop) {
	defer f.wg.Done()
	for {
		specs, wake, ok := f.nextFetch(l)
		if !ok {
			return
		}
		if len(specs) == 0 {
			select {
			case <-wake:
			case <-f.ctx.Done():
				return
			}
			continue
		}
		resp, err := f.send(l.id, specs)
		if err != nil {
			f.failed(specs, err)
			if f.ctx.Err() != nil {
				return
			}
			l.fails++
			select {
			case <-time.After(f.backoff(l.fails)):
			case <-f.ctx.Done():
				return
			}
			continue
		}
		l.fails = 0
		f.deliver(l, f.decode(specs, resp))
	}
}

// nextFetch picks the partitions l fetches next, marking them in flight:
// none while l's last response waits to be polled. ok is false once the
// fetcher is closed.
func (f *fetcher) nextFetch(l *brokerLoop) (specs []fetchSpec, wake chan struct{}, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, nil, false
	}
	if l.unpolled > 0 {
		return nil, f.wake, true
	}
	for t, ps := range f.parts {
		for p, fp := range ps {
			if fp.leader != l.id || fp.paused || fp.failed || fp.inflight {
				continue
			}
			fp.inflight = true
			specs = append(specs, fetchSpec{topic: t, topicID: f.topicIDs[t], partition: p, offset: fp.offset, epoch: fp.epoch, gen: fp.gen})
		}
	}
	return specs, f.wake, true
}

// send issues one Fetch request for specs to broker id.
func (f *fetcher) send(id int32, specs []fetchSpec) (*kmsg.FetchResponse, error) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = int32(f.maxWait / time.Millisecond)
	req.MinBytes = 1
	req.MaxBytes = f.maxBytes
	if f.readCommitted {
		req.IsolationLevel = 1
	}
	req.SessionID = 0
	req.SessionEpoch = -1 // a full fetch, no session
	byTopic := map[string]int{}
	for _, s := range specs {
		i, ok := byTopic[s.topic]
		if !ok {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic = s.topic
			rt.TopicID = s.topicID
			req.Topics = append(req.Topics, rt)
			i = len(req.Topics) - 1
			byTopic[s.topic] = i
		}
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition = s.partition
		rp.FetchOffset = s.offset
		rp.CurrentLeaderEpoch = -1
		rp.LastFetchedEpoch = s.epoch
		rp.LogStartOffset = -1
		rp.PartitionMaxBytes = f.partBytes
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, rp)
	}
	// The broker holds the request up to MaxWaitMillis when there is
	// nothing new; allow that plus the client's own timeout.
	resp, err := f.cl.Broker(int(id)).Request(f.ctx, req)
	if err != nil {
		return nil, fmt.Errorf("fetching from broker %d: %w", id, err)
	}
	fr := resp.(*kmsg.FetchResponse)
	if fr.ErrorCode != 0 {
		return nil, fmt.Errorf("fetching from broker %d: %w", id, kerr.ErrorForCode(fr.ErrorCode))
	}
	return fr, nil
}

// failed puts specs back after a request failed with err: their leaders
// are looked up again, in case the broker is gone for good.
func (f *fetcher) failed(specs []fetchSpec, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range specs {
		if fp := f.parts[s.topic][s.partition]; fp != nil && fp.gen == s.gen {
			fp.inflight = false
			fp.leader = -1
			fp.retrying(err)
		}
	}
	f.changed()
	f.ensureMetadata()
}

// retrying notes that a fetch of fp failed with err, to be retried.
func (fp *fetchPart) retrying(err error) {
	if fp.retryErr == nil {
		fp.retrySince = time.Now()
	}
	fp.retryErr = err
}

// stuck returns the error that has kept every fetch of partition p of
// topic t failing for at least d, nil if there is none.
func (f *fetcher) stuck(t string, p int32, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	fp := f.parts[t][p]
	if fp == nil || fp.retryErr == nil || time.Since(fp.retrySince) < d {
		return nil
	}
	return fmt.Errorf("%w (fetches failing for %v)", fp.retryErr, time.Since(fp.retrySince).Round(time.Second))
}
