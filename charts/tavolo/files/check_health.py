"""`helm test`: is every part of the release ready? The standard gRPC health check of each service
(service name "", its readiness: SERVING only while the Redis and Postgres it uses answer), then
the gateway's readiness (GET /api/health). It asks again for up to the timeout while something is
not ready yet, then exits 1 naming each part that is not, with what it answered; 0 once all are.

The chart runs it with the application image's Python (`python -c`); arguments: the timeout in
seconds, the gateway's health URL, then one `<service>=<host>:<port>` per gRPC service (its
plaintext health port when the services speak TLS).
"""

import json
import sys
import time
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def grpc_ready(address):
    try:
        with grpc.insecure_channel(address) as channel:
            status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5).status
    except grpc.RpcError as error:
        return f"{error.code().name}: {error.details()}"
    return "" if status == health_pb2.HealthCheckResponse.SERVING else health_pb2.HealthCheckResponse.ServingStatus.Name(status)


def http_ready(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            body = json.load(response)
            return "" if response.status == 200 and body == {"status": "ok"} else f"{response.status} {body}"
    except Exception as error:  # any failure: not ready, with the reason
        return str(error)


def main(argv):
    timeout, gateway, services = float(argv[0]), argv[1], dict(arg.split("=", 1) for arg in argv[2:])
    checks = {name: (grpc_ready, address) for name, address in services.items()}
    checks["gateway"] = (http_ready, gateway)
    give_up_at = time.monotonic() + timeout
    while True:
        failing = {name: check(target) for name, (check, target) in checks.items()}
        failing = {name: why for name, why in failing.items() if why}
        for name, (_, target) in checks.items():
            if name not in failing:
                print(f"ready: {name} ({target})")
        checks = {name: checks[name] for name in failing}
        if not failing:
            return 0
        if time.monotonic() > give_up_at:
            for name, why in failing.items():
                print(f"NOT READY: {name} ({checks[name][1]}): {why}")
            return 1
        time.sleep(2)


sys.exit(main(sys.argv[1:]))
