#!/usr/bin/python3
"""Config administration driver for the krill compatibility suite: confluent-kafka-python's AdminClient
(describe_configs / alter_configs; incremental_alter_configs only exists from 2.2, Debian ships 1.7) and
kafka-python's KafkaAdminClient (describe_configs / alter_configs).

Usage: configs_client.py COMMAND < args.json  -> prints one JSON object on stdout, exits 0.
A resource is {"type": "topic"|"broker", "name": ..., "configs": {...} (alter) or "keys": [...] (describe)}.
Each command answers per resource: the configs described, or the error the client reported.
"""
import confluent_kafka
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource as CkResource

import kafka
from kafka.admin import ConfigResource as KpResource, ConfigResourceType, KafkaAdminClient
from kafka.errors import KafkaError

import driver

TIMEOUT_S = 15


def ck_admin(a):
    return AdminClient({'bootstrap.servers': a['bootstrap'], 'broker.address.family': 'v4', 'socket.timeout.ms': 10000})


def ck_entry(e):
    return {
        'value': e.value,
        'source': int(e.source),
        'is_read_only': e.is_read_only,
        'is_default': e.is_default,
        'is_sensitive': e.is_sensitive,
        'synonyms': [[s.name, s.value, int(s.source)] for s in e.synonyms.values()],
    }


def ck_error(e):
    err = e.args[0] if e.args and hasattr(e.args[0], 'code') else None
    return {'error': err.name() if err else repr(e), 'code': err.code() if err else None, 'message': err.str() if err else str(e)}


def ck_describe(a):
    admin = ck_admin(a)
    resources = [CkResource(r['type'], r['name']) for r in a['resources']]
    futures = admin.describe_configs(resources, request_timeout=TIMEOUT_S)
    out = []
    for res in resources:
        try:
            entries = futures[res].result(TIMEOUT_S)
            out.append({'configs': {name: ck_entry(e) for name, e in entries.items()}})
        except KafkaException as e:
            out.append(ck_error(e))
    return {'results': out}


def ck_alter(a):
    admin = ck_admin(a)
    resources = [CkResource(r['type'], r['name'], set_config=r['configs']) for r in a['resources']]
    futures = admin.alter_configs(resources, request_timeout=TIMEOUT_S, validate_only=a.get('validate_only', False))
    out = []
    for res in resources:
        try:
            futures[res].result(TIMEOUT_S)
            out.append({'ok': True})
        except KafkaException as e:
            out.append(ck_error(e))
    return {'results': out}


KP_TYPES = {'topic': ConfigResourceType.TOPIC, 'broker': ConfigResourceType.BROKER}


def kp_admin(a):
    return KafkaAdminClient(client_id='krill-compat-configs', bootstrap_servers=a['bootstrap'], request_timeout_ms=15000,
                            api_version_auto_timeout_ms=10000, reconnect_backoff_max_ms=1000)


def kp_describe(a):
    """One DescribeConfigs per resource; each answer as [error_code, error_message, {name: [value, read_only, source, sensitive, synonyms]}]."""
    admin = kp_admin(a)
    out = []
    try:
        for r in a['resources']:
            keys = r.get('keys')
            resource = KpResource(KP_TYPES[r['type']], r['name'], configs=None if keys is None else {k: None for k in keys})
            [resp] = admin.describe_configs([resource], include_synonyms=a.get('include_synonyms', False))
            for error_code, error_message, _type, _name, entries in resp.resources:
                configs = {}
                for e in entries:
                    name, value, read_only = e[0], e[1], e[2]
                    # v0 entries: (name, value, read_only, is_default, is_sensitive); v1+: (name, value, read_only, source, is_sensitive, synonyms)
                    rest = list(e[3:])
                    if len(rest) == 3:
                        rest[2] = [list(s) for s in rest[2]]
                    configs[name] = [value, read_only] + rest
                out.append({'error_code': error_code, 'error_message': error_message, 'configs': configs, 'version': resp.API_VERSION})
    finally:
        admin.close()
    return {'results': out}


def kp_alter(a):
    admin = kp_admin(a)
    out = []
    try:
        for r in a['resources']:
            try:
                resp = admin.alter_configs([KpResource(KP_TYPES[r['type']], r['name'], configs=r['configs'])])
                out.append({'responses': [list(x) for x in resp.resources]})
            except KafkaError as e:
                out.append({'error': type(e).__name__, 'message': str(e)})
    finally:
        admin.close()
    return {'results': out}


def versions(a):
    return {'confluent_kafka': confluent_kafka.version()[0], 'librdkafka': confluent_kafka.libversion()[0], 'kafka_python': kafka.__version__}


COMMANDS = {f.__name__: f for f in [ck_describe, ck_alter, kp_describe, kp_alter, versions]}

if __name__ == '__main__':
    driver.main(COMMANDS)
