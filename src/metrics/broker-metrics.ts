// The counters the request path feeds, as Kafka's BrokerTopicStats and RequestMetrics keep them: per topic
// the messages and bytes produced and the bytes fetched; per request type the requests by version and a
// histogram of their total time. Each call is a map lookup and a few additions, once per request or per
// partition of a request, never per record (a batch's record count comes from its offsets). The object
// exists only while krill.http.listener is set; otherwise handlers and connections hold null and skip the
// calls, so a broker without the listener pays one null check.

/** Bucket bounds of the request time histograms, in milliseconds (Kafka's TotalTimeMs is in ms). */
export const REQUEST_TIME_BUCKETS_MS: readonly number[] = [0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000];

export class TopicCounters {
  messagesIn = 0;
  bytesIn = 0;
  /** Bytes fetched by consumers (Kafka's BytesOutPerSec). */
  bytesOut = 0;
  /** Bytes fetched by followers (Kafka's ReplicationBytesOutPerSec). */
  replicationBytesOut = 0;
}

export class RequestCounters {
  /** Requests answered, by version. */
  readonly byVersion: number[] = [];
  /** Non-cumulative: bucketCounts[i] counts times in (bound[i-1], bound[i]], the last one above every bound. */
  readonly bucketCounts = new Float64Array(REQUEST_TIME_BUCKETS_MS.length + 1);
  totalTimeMs = 0;

  observe(version: number, elapsedMs: number): void {
    this.byVersion[version] = (this.byVersion[version] ?? 0) + 1;
    let i = 0;
    while (i < REQUEST_TIME_BUCKETS_MS.length && elapsedMs > REQUEST_TIME_BUCKETS_MS[i]) i++;
    this.bucketCounts[i]++;
    this.totalTimeMs += elapsedMs;
  }
}

export class BrokerMetrics {
  readonly topics = new Map<string, TopicCounters>();
  /** By Kafka's request metric name: the API's name, with Fetch split into FetchConsumer and FetchFollower. */
  readonly requests = new Map<string, RequestCounters>();

  private topic(name: string): TopicCounters {
    let t = this.topics.get(name);
    if (!t) {
      t = new TopicCounters();
      this.topics.set(name, t);
    }
    return t;
  }

  /** A produce request appended `messages` records in `bytes` bytes of batches to a partition of `topic`. */
  produced(topic: string, messages: number, bytes: number): void {
    const t = this.topic(topic);
    t.messagesIn += messages;
    t.bytesIn += bytes;
  }

  /** A fetch response carries `bytes` bytes of `topic`'s records, to a consumer or to a follower. */
  fetched(topic: string, bytes: number, follower: boolean): void {
    const t = this.topic(topic);
    if (follower) t.replicationBytesOut += bytes;
    else t.bytesOut += bytes;
  }

  /** A request of `name` (requestName's) was answered `elapsedMs` after it arrived. */
  answered(name: string, version: number, elapsedMs: number): void {
    let r = this.requests.get(name);
    if (!r) {
      r = new RequestCounters();
      this.requests.set(name, r);
    }
    r.observe(version, elapsedMs);
  }

  /**
   * Kafka's request metric name (RequestChannel's): the API's name, except that a Fetch is FetchFollower when a
   * replica sent it (replicaId, or replicaState.replicaId from v15, >= 0) and FetchConsumer otherwise.
   */
  requestName(apiName: string, version: number, request: { replicaId?: number; replicaState?: { replicaId: number } | null }): string {
    if (apiName !== 'Fetch') return apiName;
    const replicaId = (version >= 15 ? request.replicaState?.replicaId : request.replicaId) ?? -1;
    return replicaId >= 0 ? 'FetchFollower' : 'FetchConsumer';
  }

  /** Counters of topics that no longer exist go, as Kafka removes a deleted topic's metrics. */
  forgetTopicsBut(existing: ReadonlySet<string>): void {
    for (const name of this.topics.keys()) if (!existing.has(name)) this.topics.delete(name);
  }
}
