#!/usr/bin/env python3
"""Opens new connections at RATE/s to HOST:PORT for SECONDS (bounded), one request each
("GET / HTTP/1.0" with a Host header), and prints one line per failure with its time in ms
since the start, then a summary. Kill time is passed in by the caller's clock file."""
import asyncio, sys, time

host, port, rate, seconds, vhost = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
request = ("GET / HTTP/1.0\r\nHost: %s\r\n\r\n" % vhost).encode()
failures, ok = [], 0
start = time.time()

async def one(t):
    global ok
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection(host, port), 3)
        w.write(request)
        data = await asyncio.wait_for(r.read(), 5)
        w.close()
        if data.startswith(b"HTTP/1.") and b" 200 " in data[:16]:
            ok += 1
        else:
            failures.append((t, "answer %r" % data[:20]))
    except Exception as e:
        failures.append((t, type(e).__name__))

async def main():
    tasks = []
    n = int(rate * seconds)
    for i in range(n):
        due = start + i / rate
        delay = due - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(time.time())))
    await asyncio.gather(*tasks)
    print("sent %d in %.1f s (%.0f/s), ok %d, failed %d" % (n, time.time() - start, n / (time.time() - start), ok, len(failures)))
    for t, why in sorted(failures):
        print("FAIL %.3f %s" % (t, why))

asyncio.run(main())
