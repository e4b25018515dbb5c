"""Scrapes krill's /metrics and parses it with prometheus_client's own text-format parser (run with
compat/pypi/.venv's interpreter), as a Prometheus-compatible scraper would read it.

Usage: prometheus_scrape.py scrape < {"url": "http://host:port/metrics"}
  -> {"content_type": ..., "families": {name: {"type": ..., "documentation": ...,
                                              "samples": [[sample name, {label: value}, value], ...]}}}
A family's name is the parser's: a counter's without its _total suffix.
"""
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

import driver


def scrape(a):
    with urllib.request.urlopen(a['url'], timeout=10) as res:
        content_type = res.headers['Content-Type']
        text = res.read().decode('utf-8')
    families = {}
    for family in text_string_to_metric_families(text):
        if family.name in families:
            raise ValueError(f'family {family.name} appears twice')
        families[family.name] = {
            'type': family.type,
            'documentation': family.documentation,
            'samples': [[s.name, s.labels, s.value] for s in family.samples],
        }
    return {'content_type': content_type, 'families': families}


if __name__ == '__main__':
    driver.main({'scrape': scrape})
