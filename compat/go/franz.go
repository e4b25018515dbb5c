// franz-go (kgo) scenarios: produce in each codec and consume back, a two-member consumer group, a
// GroupTransactSession, and produce/consume while the test kills a partition leader.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func init() {
	register("franz_produce_consume", franzProduceConsume)
	register("franz_group", franzGroup)
	register("franz_txn", franzTxn)
	register("franz_failover", franzFailover)
}

// newClient is a kgo client on the given bootstrap list with the library's defaults plus opts; with
// KRILL_GO_DEBUG set, kgo logs to stderr.
func newClient(bootstrap string, opts ...kgo.Opt) (*kgo.Client, error) {
	all := []kgo.Opt{kgo.SeedBrokers(strings.Split(bootstrap, ",")...)}
	if os.Getenv("KRILL_GO_DEBUG") != "" {
		all = append(all, kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelDebug, nil)))
	}
	return kgo.NewClient(append(all, opts...)...)
}

// createTopic creates a topic with kadm; rf 0 is 1.
func createTopic(ctx context.Context, bootstrap, topic string, partitions int32, rf int16) error {
	if rf == 0 {
		rf = 1
	}
	cl, err := newClient(bootstrap)
	if err != nil {
		return err
	}
	defer cl.Close()
	res, err := kadm.NewClient(cl).CreateTopic(ctx, partitions, rf, nil, topic)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	return res.Err
}

func toKgo(topic string, r Record) *kgo.Record {
	kr := &kgo.Record{Topic: topic, Key: bytesOf(r.Key), Value: bytesOf(r.Value)}
	for _, h := range r.Headers {
		kr.Headers = append(kr.Headers, kgo.RecordHeader{Key: h.Key, Value: bytesOf(h.Value)})
	}
	if r.Timestamp > 0 {
		kr.Timestamp = time.UnixMilli(r.Timestamp)
	}
	return kr
}

func fromKgo(r *kgo.Record) Record {
	out := Record{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Key: textOf(r.Key), Value: textOf(r.Value), Timestamp: r.Timestamp.UnixMilli(), Headers: []Header{}}
	for _, h := range r.Headers {
		out.Headers = append(out.Headers, Header{Key: h.Key, Value: textOf(h.Value)})
	}
	return out
}

var codecs = map[string]kgo.CompressionCodec{
	"none":   kgo.NoCompression(),
	"gzip":   kgo.GzipCompression(),
	"snappy": kgo.SnappyCompression(),
	"lz4":    kgo.Lz4Compression(),
	"zstd":   kgo.ZstdCompression(),
}

// consumeN reads `topics` from the start, without a group, until n records arrived (or timeout).
func consumeN(ctx context.Context, bootstrap string, n int, timeout time.Duration, opts []kgo.Opt, topics ...string) ([]Record, error) {
	cl, err := newClient(bootstrap, append([]kgo.Opt{kgo.ConsumeTopics(topics...), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, opts...)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	got := []Record{}
	for len(got) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return got, fmt.Errorf("consumed %d of %d records: %w", len(got), n, ctx.Err())
		}
		var ferr error
		fs.EachError(func(t string, p int32, err error) { ferr = fmt.Errorf("fetch %s/%d: %w", t, p, err) })
		if ferr != nil {
			return got, ferr
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, fromKgo(r)) })
	}
	sortRecords(got)
	return got, nil
}

// readExactly reads `topics` from the start until n records arrived.
func readExactly(ctx context.Context, bootstrap string, n int, opts []kgo.Opt, topics ...string) ([]Record, error) {
	got, err := consumeN(ctx, bootstrap, n, 30*time.Second, opts, topics...)
	return got, err
}

type produceConsumeIn struct {
	Bootstrap  string   `json:"bootstrap"`
	Codec      string   `json:"codec"`
	Topic      string   `json:"topic"`
	Partitions int32    `json:"partitions"`
	RF         int16    `json:"rf"`
	Records    []Record `json:"records"`
}

type acked struct {
	Partition int32 `json:"partition"`
	Offset    int64 `json:"offset"`
	Timestamp int64 `json:"timestamp"`
}

// franzProduceConsume: a producer with kgo's defaults (idempotent, acks=all) and one codec produces the
// records to a new topic; a second client consumes the topic from the start until it has that many.
func franzProduceConsume(ctx context.Context, raw json.RawMessage) (any, error) {
	in, err := decode[produceConsumeIn](raw)
	if err != nil {
		return nil, err
	}
	codec, ok := codecs[in.Codec]
	if !ok {
		return nil, fmt.Errorf("unknown codec %q", in.Codec)
	}
	if err := createTopic(ctx, in.Bootstrap, in.Topic, in.Partitions, in.RF); err != nil {
		return nil, err
	}
	prod, err := newClient(in.Bootstrap, kgo.ProducerBatchCompression(codec), kgo.DefaultProduceTopic(in.Topic))
	if err != nil {
		return nil, err
	}
	recs := make([]*kgo.Record, len(in.Records))
	for i, r := range in.Records {
		recs[i] = toKgo(in.Topic, r)
	}
	results := prod.ProduceSync(ctx, recs...)
	prod.Close()
	if err := results.FirstErr(); err != nil {
		return nil, fmt.Errorf("produce: %w", err)
	}
	// ProduceSync's results come in the order of the acknowledgements; the report is in the order sent.
	acks := make([]acked, len(recs))
	for i, r := range recs {
		acks[i] = acked{Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp.UnixMilli()}
	}
	got, err := consumeN(ctx, in.Bootstrap, len(in.Records), 30*time.Second, nil, in.Topic)
	if err != nil {
		return nil, err
	}
	return map[string]any{"acked": acks, "consumed": got}, nil
}

// member is one kgo group member polling in the background, keeping what it was assigned and consumed.
type member struct {
	name     string
	cl       *kgo.Client
	mu       sync.Mutex
	assigned map[int32]bool
	events   []string
	consumed []Record
	errs     []string
	done     chan struct{}
	stop     context.CancelFunc
}

func (m *member) note(what string, ps map[string][]int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range ps {
		sort.Slice(p, func(i, j int) bool { return p[i] < p[j] })
		m.events = append(m.events, fmt.Sprintf("%s %v", what, p))
		for _, x := range p {
			m.assigned[x] = what == "assigned"
		}
	}
}

func (m *member) owned() []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []int32{}
	for p, on := range m.assigned {
		if on {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (m *member) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.consumed)
}

func startMember(ctx context.Context, name, bootstrap, group, topic string) (*member, error) {
	m := &member{name: name, assigned: map[int32]bool{}, done: make(chan struct{})}
	cl, err := newClient(bootstrap,
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { m.note("assigned", ps) }),
		kgo.OnPartitionsRevoked(func(ctx context.Context, cl *kgo.Client, ps map[string][]int32) {
			// kgo's own default when revoking: commit what was consumed, so the next owner resumes there.
			if err := cl.CommitMarkedOffsets(ctx); err != nil {
				m.mu.Lock()
				m.errs = append(m.errs, "commit on revoke: "+err.Error())
				m.mu.Unlock()
			}
			m.note("revoked", ps)
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { m.note("lost", ps) }),
	)
	if err != nil {
		return nil, err
	}
	m.cl = cl
	pctx, cancel := context.WithCancel(ctx)
	m.stop = cancel
	go func() {
		defer close(m.done)
		for {
			fs := cl.PollFetches(pctx)
			if pctx.Err() != nil || fs.IsClientClosed() {
				return
			}
			m.mu.Lock()
			fs.EachError(func(t string, p int32, err error) { m.errs = append(m.errs, fmt.Sprintf("%s/%d: %v", t, p, err)) })
			fs.EachRecord(func(r *kgo.Record) { m.consumed = append(m.consumed, fromKgo(r)) })
			m.mu.Unlock()
		}
	}()
	return m, nil
}

// leave stops polling, commits what was consumed and leaves the group (kgo's Close does both).
func (m *member) leave() {
	m.stop()
	<-m.done
	m.cl.Close()
}

func (m *member) report() map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	sortRecords(m.consumed)
	vals := []string{}
	for _, r := range m.consumed {
		vals = append(vals, *r.Value)
	}
	return map[string]any{"events": m.events, "values": vals, "errors": m.errs}
}

type groupIn struct {
	Bootstrap  string `json:"bootstrap"`
	Topic      string `json:"topic"`
	Group      string `json:"group"`
	Partitions int32  `json:"partitions"`
	RF         int16  `json:"rf"`
	PerPhase   int    `json:"perPhase"`
}

func produceValues(ctx context.Context, cl *kgo.Client, topic, prefix string, n int) error {
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Topic: topic, Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("%s-%03d", prefix, i))}
	}
	return cl.ProduceSync(ctx, recs...).FirstErr()
}

// franzGroup: member a joins alone and consumes phase 1; b joins and the cooperative-sticky rebalance splits
// the partitions, both consume phase 2; b leaves and a owns everything again and consumes phase 3. Each phase
// is produced only once the assignment has settled, so every record is consumed exactly once. The committed
// offsets are then read back with kadm.
func franzGroup(ctx context.Context, raw json.RawMessage) (any, error) {
	in, err := decode[groupIn](raw)
	if err != nil {
		return nil, err
	}
	if err := createTopic(ctx, in.Bootstrap, in.Topic, in.Partitions, in.RF); err != nil {
		return nil, err
	}
	prod, err := newClient(in.Bootstrap)
	if err != nil {
		return nil, err
	}
	defer prod.Close()
	all := func(ms ...*member) bool {
		owned := [][]int32{}
		for _, m := range ms {
			owned = append(owned, m.owned())
		}
		return splitAmong(in.Partitions, owned...)
	}
	total := func(ms ...*member) int {
		n := 0
		for _, m := range ms {
			n += m.count()
		}
		return n
	}
	out := map[string]any{}

	a, err := startMember(ctx, "a", in.Bootstrap, in.Group, in.Topic)
	if err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "a to own every partition", 30*time.Second, func() bool { return all(a) }); err != nil {
		return nil, err
	}
	if err := produceValues(ctx, prod, in.Topic, "p1", in.PerPhase); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "a to consume phase 1", 30*time.Second, func() bool { return a.count() >= in.PerPhase }); err != nil {
		return nil, err
	}
	if err := a.cl.CommitUncommittedOffsets(ctx); err != nil {
		return nil, fmt.Errorf("a commit after phase 1: %w", err)
	}
	out["phase1"] = map[string]any{"a": a.owned()}

	b, err := startMember(ctx, "b", in.Bootstrap, in.Group, in.Topic)
	if err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "a and b to split the partitions", 40*time.Second, func() bool { return all(a, b) }); err != nil {
		return nil, fmt.Errorf("%w (a: %v, b: %v)", err, a.report()["events"], b.report()["events"])
	}
	out["phase2"] = map[string]any{"a": a.owned(), "b": b.owned()}
	if err := produceValues(ctx, prod, in.Topic, "p2", in.PerPhase); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "a and b to consume phase 2", 30*time.Second, func() bool { return total(a, b) >= 2*in.PerPhase }); err != nil {
		return nil, err
	}
	if err := b.cl.CommitUncommittedOffsets(ctx); err != nil {
		return nil, fmt.Errorf("b commit after phase 2: %w", err)
	}
	b.leave()
	if err := waitFor(ctx, "a to own every partition after b left", 40*time.Second, func() bool { return all(a) }); err != nil {
		return nil, fmt.Errorf("%w (a: %v)", err, a.report()["events"])
	}
	out["phase3"] = map[string]any{"a": a.owned()}
	if err := produceValues(ctx, prod, in.Topic, "p3", in.PerPhase); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "a to consume phase 3", 30*time.Second, func() bool { return total(a, b) >= 3*in.PerPhase }); err != nil {
		return nil, err
	}
	if err := a.cl.CommitUncommittedOffsets(ctx); err != nil {
		return nil, fmt.Errorf("a commit after phase 3: %w", err)
	}
	adm := kadm.NewClient(prod)
	committed, err := adm.FetchOffsets(ctx, in.Group)
	if err != nil {
		return nil, fmt.Errorf("fetch offsets: %w", err)
	}
	ends, err := adm.ListEndOffsets(ctx, in.Topic)
	if err != nil {
		return nil, fmt.Errorf("list end offsets: %w", err)
	}
	a.leave()
	co := map[string]int64{}
	committed.Each(func(o kadm.OffsetResponse) { co[fmt.Sprint(o.Partition)] = o.At })
	eo := map[string]int64{}
	ends.Each(func(o kadm.ListedOffset) { eo[fmt.Sprint(o.Partition)] = o.Offset })
	out["a"] = a.report()
	out["b"] = b.report()
	out["committed"] = co
	out["ends"] = eo
	return out, nil
}

type txnIn struct {
	Bootstrap  string `json:"bootstrap"`
	Input      string `json:"input"`
	Output     string `json:"output"`
	Group      string `json:"group"`
	TxnID      string `json:"txnId"`
	Partitions int32  `json:"partitions"`
	RF         int16  `json:"rf"`
	Count      int    `json:"count"`
}

// franzTxn: a GroupTransactSession reads `input` and writes "out-<value>" to `output`, each batch in one
// transaction with its offsets. The first transaction that holds records is aborted on purpose (its output
// is written, tagged attempt=aborted, then aborted); the session rewinds to the committed offsets and the
// records are processed again. read_committed and read_uncommitted readers then read the output.
func franzTxn(ctx context.Context, raw json.RawMessage) (any, error) {
	in, err := decode[txnIn](raw)
	if err != nil {
		return nil, err
	}
	for _, t := range []string{in.Input, in.Output} {
		if err := createTopic(ctx, in.Bootstrap, t, in.Partitions, in.RF); err != nil {
			return nil, err
		}
	}
	prod, err := newClient(in.Bootstrap)
	if err != nil {
		return nil, err
	}
	err = produceValues(ctx, prod, in.Input, "in", in.Count)
	prod.Close()
	if err != nil {
		return nil, fmt.Errorf("produce input: %w", err)
	}

	sess, err := kgo.NewGroupTransactSession(
		kgo.SeedBrokers(strings.Split(in.Bootstrap, ",")...),
		kgo.TransactionalID(in.TxnID),
		kgo.ConsumerGroup(in.Group), kgo.ConsumeTopics(in.Input), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.RequireStableFetchOffsets(),
	)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	processed := map[string]bool{}
	aborted, commits := 0, 0
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for len(processed) < in.Count {
		fs := sess.PollFetches(tctx)
		if tctx.Err() != nil {
			return nil, fmt.Errorf("processed %d of %d inputs: %w", len(processed), in.Count, tctx.Err())
		}
		var ferr error
		fs.EachError(func(t string, p int32, err error) { ferr = fmt.Errorf("fetch %s/%d: %w", t, p, err) })
		if ferr != nil {
			return nil, ferr
		}
		recs := fs.Records()
		if len(recs) == 0 {
			continue
		}
		if err := sess.Begin(); err != nil {
			return nil, fmt.Errorf("begin: %w", err)
		}
		abort := aborted == 0
		attempt := "committed"
		if abort {
			attempt = "aborted"
		}
		for _, r := range recs {
			out := &kgo.Record{Topic: in.Output, Key: r.Key, Value: append([]byte("out-"), r.Value...), Headers: []kgo.RecordHeader{{Key: "attempt", Value: []byte(attempt)}}}
			if err := sess.ProduceSync(tctx, out).FirstErr(); err != nil {
				return nil, fmt.Errorf("produce in transaction: %w", err)
			}
		}
		committed, err := sess.End(tctx, kgo.TransactionEndTry(!abort))
		if err != nil {
			return nil, fmt.Errorf("end transaction (abort=%v): %w", abort, err)
		}
		if abort {
			aborted += len(recs)
			continue
		}
		if committed {
			commits++
			for _, r := range recs {
				processed[string(r.Value)] = true
			}
		}
	}
	sess.Close()
	rc, err := readExactly(ctx, in.Bootstrap, in.Count, []kgo.Opt{kgo.FetchIsolationLevel(kgo.ReadCommitted())}, in.Output)
	if err != nil {
		return nil, fmt.Errorf("read_committed: %w", err)
	}
	ru, err := readExactly(ctx, in.Bootstrap, in.Count+aborted, []kgo.Opt{kgo.FetchIsolationLevel(kgo.ReadUncommitted())}, in.Output)
	if err != nil {
		return nil, fmt.Errorf("read_uncommitted: %w", err)
	}
	cl, err := newClient(in.Bootstrap)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	offs, err := adm.FetchOffsets(ctx, in.Group)
	if err != nil {
		return nil, err
	}
	ends, err := adm.ListEndOffsets(ctx, in.Input)
	if err != nil {
		return nil, err
	}
	co, eo := map[string]int64{}, map[string]int64{}
	offs.Each(func(o kadm.OffsetResponse) { co[fmt.Sprint(o.Partition)] = o.At })
	ends.Each(func(o kadm.ListedOffset) { eo[fmt.Sprint(o.Partition)] = o.Offset })
	summary := func(rs []Record) []string {
		out := []string{}
		for _, r := range rs {
			tag := ""
			for _, h := range r.Headers {
				if h.Key == "attempt" {
					tag = *h.Value
				}
			}
			out = append(out, *r.Value+"/"+tag)
		}
		sort.Strings(out)
		return out
	}
	return map[string]any{"aborted": aborted, "commits": commits, "readCommitted": summary(rc), "readUncommitted": summary(ru), "committed": co, "inputEnds": eo}, nil
}

type failoverIn struct {
	Bootstrap  string `json:"bootstrap"`
	Topic      string `json:"topic"`
	Partitions int32  `json:"partitions"`
	Total      int    `json:"total"`
	KillAfter  int    `json:"killAfter"`
}

// franzFailover: produces `total` records at a steady pace (kgo defaults: idempotent, acks=all, retries
// until the delivery timeout). After `killAfter` acknowledgements it prints {"progress":"kill"} and the
// test SIGKILLs a partition leader; production goes on. Once every record is acknowledged (or failed), a
// consumer reads the topic from the start; the report has every failed produce and what was consumed.
func franzFailover(ctx context.Context, raw json.RawMessage) (any, error) {
	in, err := decode[failoverIn](raw)
	if err != nil {
		return nil, err
	}
	prod, err := newClient(in.Bootstrap, kgo.DefaultProduceTopic(in.Topic))
	if err != nil {
		return nil, err
	}
	var ackedN atomic.Int64
	var mu sync.Mutex
	failures := []string{}
	ackedValues := []string{}
	lastAck := map[string]int64{} // partition -> when its last record was acknowledged (ms since the epoch)
	var wg sync.WaitGroup
	killSignalled := false
	for i := 0; i < in.Total; i++ {
		wg.Add(1)
		v := fmt.Sprintf("v-%05d", i)
		prod.Produce(ctx, &kgo.Record{Key: []byte(fmt.Sprintf("k-%d", i)), Value: []byte(v)}, func(r *kgo.Record, err error) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failures = append(failures, fmt.Sprintf("%s: %v", v, err))
				return
			}
			ackedValues = append(ackedValues, v)
			lastAck[fmt.Sprint(r.Partition)] = time.Now().UnixMilli()
			ackedN.Add(1)
		})
		if !killSignalled && ackedN.Load() >= int64(in.KillAfter) {
			killSignalled = true
			emit(map[string]any{"progress": "kill", "acked": ackedN.Load()})
		}
		time.Sleep(2 * time.Millisecond) // a steady load rather than one burst: records are in flight when the leader dies
	}
	if !killSignalled {
		if err := waitFor(ctx, "acks before the kill", 30*time.Second, func() bool { return ackedN.Load() >= int64(in.KillAfter) }); err != nil {
			return nil, err
		}
		emit(map[string]any{"progress": "kill", "acked": ackedN.Load()})
	}
	wg.Wait()
	prod.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(failures) > 0 {
		return map[string]any{"failures": failures, "acked": len(ackedValues)}, nil
	}
	got, err := consumeN(ctx, in.Bootstrap, len(ackedValues), 60*time.Second, nil, in.Topic)
	if err != nil {
		return nil, err
	}
	vals := []string{}
	for _, r := range got {
		vals = append(vals, *r.Value)
	}
	sort.Strings(vals)
	sort.Strings(ackedValues)
	return map[string]any{"failures": failures, "acked": ackedValues, "consumed": vals, "lastAck": lastAck}, nil
}
