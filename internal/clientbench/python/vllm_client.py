"""Runs vLLM's own benchmark client against llmbench's zero-compute server and prints one
JSON result line: the tokens the server wrote during a window, and this process's CPU
time over that window (getrusage).

vLLM's code is not copied here: --request-func names a copy of vLLM's
vllm/benchmarks/lib/endpoint_request_func.py (or benchmarks/backend_request_func.py of
older releases), and its async_request_openai_chat_completions does the streaming, over
one aiohttp session built the way `vllm bench serve` builds it (vllm/benchmarks/serve.py,
benchmark()). N workers each run that function in a loop: the closed loop that
`vllm bench serve --max-concurrency N --request-rate inf` keeps.

Tokens are counted as the client reads them: vLLM's function keeps its timings to
itself until a request ends, and the window cancels requests midway, so the driver
wraps StreamedResponseHandler.add_chunk and counts the "data:" messages it returns
([DONE] excepted), as the Go floor counts its lines. The wrapper is one Python call
and an addition per read, charged to vLLM's client. (The server's own count is no
substitute: a client that falls behind leaves tokens in the kernel's socket buffers.)

Needs python3 with aiohttp, regex and tqdm (Debian: python3-aiohttp python3-regex
python3-tqdm).
"""

import argparse
import asyncio
import importlib.util
import json
import resource
import time

import aiohttp


def load(path):
    spec = importlib.util.spec_from_file_location("vllm_request_func", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def cpu_seconds():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


async def stats(session, url):
    async with session.get(url + "/stats") as r:
        return await r.json()


async def main(a):
    mod = load(a.request_func)
    read = 0
    add_chunk = mod.StreamedResponseHandler.add_chunk

    def counting_add_chunk(self, chunk_bytes):
        nonlocal read
        messages = add_chunk(self, chunk_bytes)
        for m in messages:
            if m.startswith("data:") and m != "data: [DONE]":
                read += 1
        return messages

    mod.StreamedResponseHandler.add_chunk = counting_add_chunk
    connector = aiohttp.TCPConnector(
        limit=a.streams,
        limit_per_host=a.streams,
        ttl_dns_cache=300,
        use_dns_cache=True,
        keepalive_timeout=60,
        enable_cleanup_closed=True,
        force_close=False,
        ssl=False,
    )
    session = aiohttp.ClientSession(
        connector=connector,
        trust_env=True,
        timeout=aiohttp.ClientTimeout(total=6 * 60 * 60),
    )
    request = mod.RequestFuncInput(
        prompt="Hello",
        api_url=a.url + "/v1/chat/completions",
        prompt_len=16,
        output_len=a.max_tokens,
        model="zerostream",
        ignore_eos=True,
    )
    failures = 0

    async def worker():
        nonlocal failures
        while True:
            out = await mod.async_request_openai_chat_completions(request, session)
            if not out.success:
                failures += 1

    workers = [asyncio.create_task(worker()) for _ in range(a.streams)]
    async with aiohttp.ClientSession() as side:
        deadline = time.monotonic() + 180
        while (await stats(side, a.url))["active"] < a.streams:
            if time.monotonic() > deadline:
                raise SystemExit("not every stream got going within 3 minutes")
            await asyncio.sleep(0.05)
        await asyncio.sleep(a.settle)
        s0 = await stats(side, a.url)
        cpu0, wall0, fail0, read0 = cpu_seconds(), time.perf_counter(), failures, read
        await asyncio.sleep(a.window)
        cpu1, wall1, fail1, read1 = cpu_seconds(), time.perf_counter(), failures, read
        s1 = await stats(side, a.url)
    for w in workers:
        w.cancel()
    await asyncio.gather(*workers, return_exceptions=True)
    await session.close()
    print(json.dumps({
        "kind": "vllm",
        "streams": a.streams,
        "window_s": wall1 - wall0,
        "cpu_s": cpu1 - cpu0,
        "tokens": read1 - read0,
        "server_tokens": s1["tokens"] - s0["tokens"],
        "procs": 1,
        "errors": fail1 - fail0,
    }))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--request-func", required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--streams", type=int, required=True)
    p.add_argument("--max-tokens", type=int, default=2048)
    p.add_argument("--settle", type=float, default=1.0)
    p.add_argument("--window", type=float, default=10.0)
    asyncio.run(main(p.parse_args()))
