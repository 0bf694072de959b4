#!/usr/bin/env python3
"""Groups a flat `perf report --no-children --sort sym --stdio` listing by what the
symbols belong to (the kernel's network path, the tokio runtime, the allocator, the
HTTP, SQL and Redis clients, JSON, Parley's own code), for BENCHMARKS.md ("Issue #16:
where the CPU goes"). Usage: scripts/perf-stages.py LISTING.txt"""
import re,sys,collections
cats=[('kernel (network, syscalls, scheduling)',r'^\[k\]'),
('allocator (malloc/free/memmove)',r'malloc|_int_free|cfree|memmove|memcpy|unlink_chunk|realloc|memset|_int_realloc|malloc_consolidate'),
('tokio runtime (tasks, wakers, timers, I/O driver, channels)',r'tokio::|mio::|atomic_waker|futures_util::|futures_core|parking_lot|event_listener'),
('JSON (serde_json)',r'serde_json|serde::'),
('HTTP/SSE client and server (hyper, reqwest, h2, eventsource, poem, nom)',r'hyper|reqwest|h2::|eventsource|poem|http::|nom::|bytes::|httparse|tower'),
('PostgreSQL client (sqlx, sea-orm, sea-query)',r'sqlx|sea_orm|sea_query|postgres'),
('Redis client',r'redis::|combine::'),
('tracing/metrics',r'tracing|metrics|opentelemetry'),
('async-openai',r'async_openai'),
('Parley code',r'parley_'),
('libc other',r'libc|__GI|epoll|pthread|__libc|syscall'),
]
tot=collections.Counter()
for line in open(sys.argv[1]):
    m=re.match(r'\s*([\d.]+)%\s+(.*)$',line)
    if not m: continue
    pct=float(m.group(1)); sym=m.group(2)
    for name,rx in cats:
        if re.search(rx,sym):
            tot[name]+=pct; break
    else:
        tot['other']+=pct
for k,v in tot.most_common(): print(f'{v:6.1f}%  {k}')
