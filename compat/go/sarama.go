// IBM Sarama scenarios: idempotent SyncProducer and AsyncProducer, a two-member ConsumerGroup with commits,
// and ClusterAdmin. `version` selects config.Version ("" keeps Sarama's default).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

func init() {
	register("sarama_produce_consume", saramaProduceConsume)
	register("sarama_group", saramaGroup)
	register("sarama_admin", saramaAdmin)
}

type saramaIn struct {
	Bootstrap  string   `json:"bootstrap"`
	Version    string   `json:"version"`
	Topic      string   `json:"topic"`
	Group      string   `json:"group"`
	Partitions int32    `json:"partitions"`
	RF         int16    `json:"rf"`
	Records    []Record `json:"records"`
	PerPhase   int      `json:"perPhase"`
}

func (in saramaIn) addrs() []string { return strings.Split(in.Bootstrap, ",") }

// saramaConfig: Sarama's defaults, with config.Version when given; KRILL_GO_DEBUG turns on its logger.
func saramaConfig(version string) (*sarama.Config, error) {
	cfg := sarama.NewConfig()
	cfg.ClientID = "krill-compat-sarama"
	if version != "" {
		v, err := sarama.ParseKafkaVersion(version)
		if err != nil {
			return nil, err
		}
		cfg.Version = v
	}
	if os.Getenv("KRILL_GO_DEBUG") != "" {
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.LstdFlags|log.Lmicroseconds)
	}
	return cfg, nil
}

// idempotent is what Sarama requires of an idempotent producer: acks=all, one request in flight, retries.
func idempotent(cfg *sarama.Config) {
	cfg.Producer.Idempotent = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Net.MaxOpenRequests = 1
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	cfg.Producer.Retry.Max = 10
	cfg.Producer.Retry.Backoff = 100 * time.Millisecond
}

// saramaSetup decodes a scenario's input and opens a ClusterAdmin with its config.Version.
func saramaSetup(raw json.RawMessage) (saramaIn, sarama.ClusterAdmin, error) {
	in, err := decode[saramaIn](raw)
	if err != nil {
		return in, nil, err
	}
	admin, err := saramaAdminOf(in)
	if err != nil {
		return in, nil, fmt.Errorf("cluster admin: %w", err)
	}
	return in, admin, nil
}

// saramaTopicSetup: saramaSetup, then the scenario's topic created and an idempotent producer's config.
func saramaTopicSetup(raw json.RawMessage) (saramaIn, sarama.ClusterAdmin, *sarama.Config, error) {
	in, admin, err := saramaSetup(raw)
	if err != nil {
		return in, nil, nil, err
	}
	if err := admin.CreateTopic(in.Topic, &sarama.TopicDetail{NumPartitions: in.Partitions, ReplicationFactor: max(in.RF, 1)}, false); err != nil {
		admin.Close()
		return in, nil, nil, fmt.Errorf("create topic: %w", err)
	}
	cfg, err := saramaConfig(in.Version)
	if err != nil {
		admin.Close()
		return in, nil, nil, err
	}
	idempotent(cfg)
	return in, admin, cfg, nil
}

func saramaAdminOf(in saramaIn) (sarama.ClusterAdmin, error) {
	cfg, err := saramaConfig(in.Version)
	if err != nil {
		return nil, err
	}
	return sarama.NewClusterAdmin(in.addrs(), cfg)
}

func toSarama(topic string, r Record) *sarama.ProducerMessage {
	m := &sarama.ProducerMessage{Topic: topic}
	if r.Key != nil {
		m.Key = sarama.StringEncoder(*r.Key)
	}
	if r.Value != nil {
		m.Value = sarama.StringEncoder(*r.Value)
	}
	for _, h := range r.Headers {
		m.Headers = append(m.Headers, sarama.RecordHeader{Key: []byte(h.Key), Value: bytesOf(h.Value)})
	}
	if r.Timestamp > 0 {
		m.Timestamp = time.UnixMilli(r.Timestamp)
	}
	return m
}

func fromSarama(m *sarama.ConsumerMessage) Record {
	r := Record{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset, Key: textOf(m.Key), Value: textOf(m.Value), Timestamp: m.Timestamp.UnixMilli(), Headers: []Header{}}
	for _, h := range m.Headers {
		r.Headers = append(r.Headers, Header{Key: string(h.Key), Value: textOf(h.Value)})
	}
	return r
}

// saramaProduceConsume: the first half of the records through an idempotent SyncProducer, the second half
// through an idempotent AsyncProducer; then a Consumer reads every partition from the oldest offset.
func saramaProduceConsume(ctx context.Context, raw json.RawMessage) (any, error) {
	in, admin, cfg, err := saramaTopicSetup(raw)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	half := len(in.Records) / 2
	acks := []acked{}

	sp, err := sarama.NewSyncProducer(in.addrs(), cfg)
	if err != nil {
		return nil, fmt.Errorf("sync producer: %w", err)
	}
	for _, r := range in.Records[:half] {
		m := toSarama(in.Topic, r)
		p, o, err := sp.SendMessage(m)
		if err != nil {
			sp.Close()
			return nil, fmt.Errorf("sync send: %w", err)
		}
		acks = append(acks, acked{Partition: p, Offset: o})
	}
	if err := sp.Close(); err != nil {
		return nil, fmt.Errorf("sync producer close: %w", err)
	}

	ap, err := sarama.NewAsyncProducer(in.addrs(), cfg)
	if err != nil {
		return nil, fmt.Errorf("async producer: %w", err)
	}
	rest := in.Records[half:]
	go func() {
		for i, r := range rest {
			m := toSarama(in.Topic, r)
			m.Metadata = i
			ap.Input() <- m
		}
	}()
	asyncAcks := make([]acked, len(rest))
	for n := 0; n < len(rest); n++ {
		select {
		case m := <-ap.Successes():
			asyncAcks[m.Metadata.(int)] = acked{Partition: m.Partition, Offset: m.Offset}
		case e := <-ap.Errors():
			ap.Close()
			return nil, fmt.Errorf("async send: %w", e.Err)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err := ap.Close(); err != nil {
		return nil, fmt.Errorf("async producer close: %w", err)
	}
	acks = append(acks, asyncAcks...)

	got, err := saramaConsumeAll(ctx, in, len(in.Records))
	if err != nil {
		return nil, err
	}
	return map[string]any{"acked": acks, "consumed": got, "version": cfg.Version.String()}, nil
}

// saramaConsumeAll reads every partition of the topic from the oldest offset until n records arrived.
func saramaConsumeAll(ctx context.Context, in saramaIn, n int) ([]Record, error) {
	cfg, err := saramaConfig(in.Version)
	if err != nil {
		return nil, err
	}
	c, err := sarama.NewConsumer(in.addrs(), cfg)
	if err != nil {
		return nil, fmt.Errorf("consumer: %w", err)
	}
	defer c.Close()
	parts, err := c.Partitions(in.Topic)
	if err != nil {
		return nil, err
	}
	msgs := make(chan *sarama.ConsumerMessage)
	errs := make(chan error, len(parts))
	for _, p := range parts {
		pc, err := c.ConsumePartition(in.Topic, p, sarama.OffsetOldest)
		if err != nil {
			return nil, fmt.Errorf("consume partition %d: %w", p, err)
		}
		defer pc.AsyncClose()
		go func() {
			for m := range pc.Messages() {
				msgs <- m
			}
		}()
		go func() {
			for e := range pc.Errors() {
				errs <- e
			}
		}()
	}
	got := []Record{}
	timeout := time.After(30 * time.Second)
	for len(got) < n {
		select {
		case m := <-msgs:
			got = append(got, fromSarama(m))
		case e := <-errs:
			return nil, fmt.Errorf("consume: %w", e)
		case <-timeout:
			return nil, fmt.Errorf("consumed %d of %d records", len(got), n)
		}
	}
	sortRecords(got)
	return got, nil
}

// saramaMember is one ConsumerGroup member consuming in the background; its handler marks every message.
type saramaMember struct {
	mu       sync.Mutex
	group    sarama.ConsumerGroup
	claims   []int32
	events   []string
	values   []string
	errs     []string
	sessions int
	cancel   context.CancelFunc
	done     chan struct{}
}

func (m *saramaMember) Setup(s sarama.ConsumerGroupSession) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sessions++
	m.claims = []int32{}
	for _, ps := range s.Claims() {
		m.claims = append(m.claims, ps...)
	}
	sort.Slice(m.claims, func(i, j int) bool { return m.claims[i] < m.claims[j] })
	m.events = append(m.events, fmt.Sprintf("generation %d: %v", s.GenerationID(), m.claims))
	return nil
}

func (m *saramaMember) Cleanup(sarama.ConsumerGroupSession) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.claims = []int32{}
	return nil
}

func (m *saramaMember) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for msg := range c.Messages() {
		m.mu.Lock()
		m.values = append(m.values, string(msg.Value))
		m.mu.Unlock()
		s.MarkMessage(msg, "")
	}
	return nil
}

func (m *saramaMember) owned() []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]int32{}, m.claims...)
}

func (m *saramaMember) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.values)
}

func startSaramaMember(ctx context.Context, in saramaIn) (*saramaMember, error) {
	cfg, err := saramaConfig(in.Version)
	if err != nil {
		return nil, err
	}
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	g, err := sarama.NewConsumerGroup(in.addrs(), in.Group, cfg)
	if err != nil {
		return nil, fmt.Errorf("consumer group: %w", err)
	}
	m := &saramaMember{group: g, claims: []int32{}, done: make(chan struct{})}
	cctx, cancel := context.WithCancel(ctx)
	m.cancel = cancel
	go func() {
		for e := range g.Errors() {
			m.mu.Lock()
			m.errs = append(m.errs, e.Error())
			m.mu.Unlock()
		}
	}()
	go func() {
		defer close(m.done)
		for cctx.Err() == nil {
			if err := g.Consume(cctx, []string{in.Topic}, m); err != nil {
				if errors.Is(err, sarama.ErrClosedConsumerGroup) {
					return
				}
				m.mu.Lock()
				m.errs = append(m.errs, "consume: "+err.Error())
				m.mu.Unlock()
				time.Sleep(100 * time.Millisecond) // Sarama's own advice: call Consume again after an error
			}
		}
	}()
	return m, nil
}

// leave ends the session (committing what was marked) and closes the group, which leaves it.
func (m *saramaMember) leave() error {
	m.cancel()
	<-m.done
	return m.group.Close()
}

func (m *saramaMember) report() map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := append([]string{}, m.values...)
	sort.Strings(v)
	return map[string]any{"events": m.events, "values": v, "errors": m.errs}
}

// saramaGroup: a alone consumes phase 1; b joins and the partitions are split, phase 2 is consumed by both;
// b leaves, a consumes phase 3. Each phase is produced once the assignment settled. Committed offsets are
// read back with ClusterAdmin.ListConsumerGroupOffsets.
func saramaGroup(ctx context.Context, raw json.RawMessage) (any, error) {
	in, admin, cfg, err := saramaTopicSetup(raw)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	sp, err := sarama.NewSyncProducer(in.addrs(), cfg)
	if err != nil {
		return nil, err
	}
	defer sp.Close()
	produce := func(prefix string) error {
		msgs := []*sarama.ProducerMessage{}
		for i := 0; i < in.PerPhase; i++ {
			msgs = append(msgs, &sarama.ProducerMessage{Topic: in.Topic, Key: sarama.StringEncoder(fmt.Sprintf("k%d", i)), Value: sarama.StringEncoder(fmt.Sprintf("%s-%03d", prefix, i))})
		}
		return sp.SendMessages(msgs)
	}
	split := func(ms ...*saramaMember) bool {
		owned := [][]int32{}
		for _, m := range ms {
			owned = append(owned, m.owned())
		}
		return splitAmong(in.Partitions, owned...)
	}
	out := map[string]any{}
	a, err := startSaramaMember(ctx, in)
	if err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "a to own every partition", 40*time.Second, func() bool { return split(a) }); err != nil {
		return nil, fmt.Errorf("%w (a: %v)", err, a.report())
	}
	if err := produce("p1"); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "a to consume phase 1", 30*time.Second, func() bool { return a.count() >= in.PerPhase }); err != nil {
		return nil, err
	}
	out["phase1"] = map[string]any{"a": a.owned()}
	b, err := startSaramaMember(ctx, in)
	if err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "a and b to split the partitions", 40*time.Second, func() bool { return split(a, b) }); err != nil {
		return nil, fmt.Errorf("%w (a: %v, b: %v)", err, a.report(), b.report())
	}
	out["phase2"] = map[string]any{"a": a.owned(), "b": b.owned()}
	if err := produce("p2"); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "a and b to consume phase 2", 30*time.Second, func() bool { return a.count()+b.count() >= 2*in.PerPhase }); err != nil {
		return nil, err
	}
	if err := b.leave(); err != nil {
		return nil, fmt.Errorf("b close: %w", err)
	}
	if err := waitFor(ctx, "a to own every partition after b left", 40*time.Second, func() bool { return split(a) }); err != nil {
		return nil, fmt.Errorf("%w (a: %v)", err, a.report())
	}
	out["phase3"] = map[string]any{"a": a.owned()}
	if err := produce("p3"); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, "a to consume phase 3", 30*time.Second, func() bool { return a.count()+b.count() >= 3*in.PerPhase }); err != nil {
		return nil, err
	}
	if err := a.leave(); err != nil {
		return nil, fmt.Errorf("a close: %w", err)
	}
	offs, err := admin.ListConsumerGroupOffsets(in.Group, nil)
	if err != nil {
		return nil, fmt.Errorf("list group offsets: %w", err)
	}
	committed := map[string]int64{}
	for _, ps := range offs.Blocks {
		for p, b := range ps {
			committed[fmt.Sprint(p)] = b.Offset
		}
	}
	out["a"] = a.report()
	out["b"] = b.report()
	out["committed"] = committed
	return out, nil
}

// saramaAdmin: ClusterAdmin over topics, configs, partitions, records, consumer groups and the cluster.
func saramaAdmin(ctx context.Context, raw json.RawMessage) (any, error) {
	in, admin, err := saramaSetup(raw)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	topic := in.Topic
	r := report{}
	r.step("create", func() (any, error) {
		err := admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 2, ReplicationFactor: 1, ConfigEntries: map[string]*string{"retention.ms": str("3600000")}}, false)
		again := admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 2, ReplicationFactor: 1}, false)
		return map[string]any{"error": stepErr(err), "again": stepErr(again)}, nil
	})
	r.step("list", func() (any, error) {
		ts, err := admin.ListTopics()
		if err != nil {
			return nil, err
		}
		d, ok := ts[topic]
		return map[string]any{"found": ok, "partitions": d.NumPartitions, "rf": d.ReplicationFactor, "retention": d.ConfigEntries["retention.ms"]}, nil
	})
	r.step("describe", func() (any, error) {
		md, err := admin.DescribeTopics([]string{topic})
		if err != nil {
			return nil, err
		}
		out := []map[string]any{}
		for _, t := range md {
			out = append(out, map[string]any{"name": t.Name, "error": kerrText(t.Err), "partitions": len(t.Partitions)})
		}
		return out, nil
	})
	r.step("createPartitions", func() (any, error) {
		err := admin.CreatePartitions(topic, 4, nil, false)
		md, derr := admin.DescribeTopics([]string{topic})
		if derr != nil {
			return nil, derr
		}
		return map[string]any{"error": stepErr(err), "after": len(md[0].Partitions)}, nil
	})
	r.step("deleteRecords", func() (any, error) {
		cfg, err := saramaConfig(in.Version)
		if err != nil {
			return nil, err
		}
		idempotent(cfg)
		cfg.Producer.Partitioner = sarama.NewManualPartitioner
		sp, err := sarama.NewSyncProducer(in.addrs(), cfg)
		if err != nil {
			return nil, err
		}
		msgs := []*sarama.ProducerMessage{}
		for i := 0; i < 6; i++ {
			msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.StringEncoder(fmt.Sprintf("d%d", i))})
		}
		err = sp.SendMessages(msgs)
		sp.Close()
		if err != nil {
			return nil, err
		}
		derr := admin.DeleteRecords(topic, map[int32]int64{0: 4})
		cl, err := sarama.NewClient(in.addrs(), cfg)
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		oldest, err := cl.GetOffset(topic, 0, sarama.OffsetOldest)
		if err != nil {
			return nil, err
		}
		newest, err := cl.GetOffset(topic, 0, sarama.OffsetNewest)
		if err != nil {
			return nil, err
		}
		return map[string]any{"error": stepErr(derr), "oldest": oldest, "newest": newest}, nil
	})
	r.step("groups", func() (any, error) {
		// A member joins, consumes partition 0's two remaining records, commits and leaves.
		gin := in
		gin.Group = in.Group
		m, err := startSaramaMember(ctx, gin)
		if err != nil {
			return nil, err
		}
		if err := waitFor(ctx, "the member to consume the 2 records left", 30*time.Second, func() bool { return m.count() >= 2 }); err != nil {
			return nil, err
		}
		out := map[string]any{}
		groups, err := admin.ListConsumerGroups()
		if err != nil {
			return nil, err
		}
		out["listed"] = groups[in.Group]
		descs, err := admin.DescribeConsumerGroups([]string{in.Group})
		if err != nil {
			return nil, err
		}
		for _, d := range descs {
			members := []map[string]any{}
			for _, mem := range d.Members {
				a, err := mem.GetMemberAssignment()
				if err != nil {
					return nil, err
				}
				ps := append([]int32{}, a.Topics[topic]...)
				sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
				members = append(members, map[string]any{"clientId": mem.ClientId, "assigned": ps})
			}
			out["described"] = map[string]any{"state": d.State, "protocolType": d.ProtocolType, "protocol": d.Protocol, "error": kerrText(d.Err), "members": members}
		}
		if err := m.leave(); err != nil {
			return nil, err
		}
		offs, err := admin.ListConsumerGroupOffsets(in.Group, map[string][]int32{topic: {0, 1}})
		if err != nil {
			return nil, err
		}
		committed := map[string]int64{}
		for p, b := range offs.Blocks[topic] {
			committed[fmt.Sprint(p)] = b.Offset
		}
		out["committed"] = committed
		out["deleteOffset"] = stepErr(admin.DeleteConsumerGroupOffset(in.Group, topic, 0))
		offs, err = admin.ListConsumerGroupOffsets(in.Group, map[string][]int32{topic: {0}})
		if err != nil {
			return nil, err
		}
		out["afterDelete"] = offs.Blocks[topic][0].Offset
		out["deleteGroup"] = stepErr(admin.DeleteConsumerGroup(in.Group))
		groups, err = admin.ListConsumerGroups()
		if err != nil {
			return nil, err
		}
		_, out["stillListed"] = groups[in.Group]
		return out, nil
	})
	configs := func() (map[string]any, error) {
		entries, err := admin.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: topic})
		if err != nil {
			return nil, err
		}
		out := map[string]any{}
		for _, e := range entries {
			if e.Name == "retention.ms" || e.Name == "cleanup.policy" || e.Name == "max.message.bytes" {
				out[e.Name] = map[string]any{"value": e.Value, "default": e.Default, "source": e.Source.String()}
			}
		}
		return out, nil
	}
	r.step("describeConfig", func() (any, error) { return configs() })
	r.step("alterConfig", func() (any, error) {
		err := admin.AlterConfig(sarama.TopicResource, topic, map[string]*string{"retention.ms": str("7200000")}, false)
		after, derr := configs()
		return map[string]any{"error": stepErr(err), "after": after}, derr
	})
	r.step("incrementalAlterConfig", func() (any, error) {
		err := admin.IncrementalAlterConfig(sarama.TopicResource, topic, map[string]sarama.IncrementalAlterConfigsEntry{
			"cleanup.policy": {Operation: sarama.IncrementalAlterConfigsOperationSet, Value: str("compact")},
		}, false)
		after, derr := configs()
		return map[string]any{"error": stepErr(err), "after": after}, derr
	})
	r.step("cluster", func() (any, error) {
		brokers, controller, err := admin.DescribeCluster()
		if err != nil {
			return nil, err
		}
		ids := []int32{}
		for _, b := range brokers {
			ids = append(ids, b.ID())
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		dirs, err := admin.DescribeLogDirs(ids)
		if err != nil {
			return map[string]any{"brokers": ids, "controller": controller, "logDirs": map[string]string{"error": err.Error()}}, nil
		}
		ld := map[string]any{}
		for id, ds := range dirs {
			for _, d := range ds {
				ld[fmt.Sprint(id)] = map[string]any{"path": d.Path, "error": kerrText(d.ErrorCode), "topics": len(d.Topics)}
			}
		}
		return map[string]any{"brokers": ids, "controller": controller, "logDirs": ld}, nil
	})
	r.step("delete", func() (any, error) {
		err := admin.DeleteTopic(topic)
		var left bool
		werr := waitFor(ctx, "the topic to leave the metadata", 20*time.Second, func() bool {
			ts, err := admin.ListTopics()
			if err != nil {
				return false
			}
			_, left = ts[topic]
			return !left
		})
		return map[string]any{"error": stepErr(err), "left": left, "wait": stepErr(werr)}, nil
	})
	return r, nil
}

// kerrText is a Kafka error code as text: "" for no error.
func kerrText(e sarama.KError) string {
	if e == sarama.ErrNoError {
		return ""
	}
	return e.Error()
}
