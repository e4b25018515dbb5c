/*
 * mock-cluster: librdkafka's in-memory mock Kafka cluster as a standalone
 * process, the baseline the krill benchmark compares against.
 *
 *   mock-cluster [--brokers N] [topic[:partitions[:replication_factor]]]...
 *
 * Starts a mock cluster with N brokers (default 1; each listening on
 * 127.0.0.1, ephemeral port), creates the named topics (default 1 partition
 * and replication factor 1 each; the mock would otherwise auto-create topics
 * with its default partition count), prints the bootstrap servers (host:port,
 * comma-separated) as line 1 of stdout, and then stays up until stdin is
 * closed or it receives SIGTERM/SIGINT.
 *
 * The mock's replicas are bookkeeping only: a partition has one in-memory log,
 * answered by its leader, and acks=all waits for nobody. (librdkafka 2.0's
 * mock lists min(3, N) replicas for every partition, whatever replication
 * factor is asked for.)
 *
 * Build: gcc -O2 -o bench/build/mock-cluster bench/mock-cluster.c -lrdkafka
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig) {
        (void)sig;
        stop_requested = 1;
}

int main(int argc, char **argv) {
        char errstr[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        /* The handle only hosts the mock cluster; keep it quiet. */
        rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));

        rd_kafka_t *rk =
            rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk) {
                fprintf(stderr, "mock-cluster: rd_kafka_new: %s\n", errstr);
                return 1;
        }

        int first_topic = 1;
        int broker_cnt = 1;
        if (argc > 2 && strcmp(argv[1], "--brokers") == 0) {
                broker_cnt = atoi(argv[2]);
                if (broker_cnt < 1) {
                        fprintf(stderr, "mock-cluster: bad broker count '%s'\n", argv[2]);
                        return 2;
                }
                first_topic = 3;
        }

        rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, broker_cnt);
        if (!mcluster) {
                fprintf(stderr, "mock-cluster: cannot create mock cluster\n");
                rd_kafka_destroy(rk);
                return 1;
        }

        for (int i = first_topic; i < argc; i++) {
                char name[256];
                int partitions = 1;
                int replication_factor = 1;
                const char *colon = strchr(argv[i], ':');
                size_t len = colon ? (size_t)(colon - argv[i]) : strlen(argv[i]);
                if (len == 0 || len >= sizeof(name)) {
                        fprintf(stderr, "mock-cluster: bad topic '%s'\n", argv[i]);
                        return 2;
                }
                memcpy(name, argv[i], len);
                name[len] = '\0';
                if (colon) {
                        partitions = atoi(colon + 1);
                        if (partitions < 1) {
                                fprintf(stderr, "mock-cluster: bad partition count in '%s'\n", argv[i]);
                                return 2;
                        }
                        const char *colon2 = strchr(colon + 1, ':');
                        if (colon2) {
                                replication_factor = atoi(colon2 + 1);
                                if (replication_factor < 1 || replication_factor > broker_cnt) {
                                        fprintf(stderr, "mock-cluster: bad replication factor in '%s'\n", argv[i]);
                                        return 2;
                                }
                        }
                }
                rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(
                    mcluster, name, partitions, replication_factor);
                if (err) {
                        fprintf(stderr, "mock-cluster: create topic %s: %s\n", name,
                                rd_kafka_err2str(err));
                        return 1;
                }
        }

        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);

        printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
        fflush(stdout);

        /* Wait for stdin EOF (parent gone or closed the pipe) or a signal. */
        while (!stop_requested) {
                struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
                int r = poll(&pfd, 1, 250);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (r == 0)
                        continue;
                if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
                        break;
                if (pfd.revents & POLLIN) {
                        char buf[256];
                        ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
                        if (n <= 0)
                                break; /* EOF or error */
                }
        }

        rd_kafka_mock_cluster_destroy(mcluster);
        rd_kafka_destroy(rk);
        return 0;
}
