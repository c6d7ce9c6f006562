import type { INestApplication } from '@nestjs/common';

export interface Route {
  method: 'get' | 'post' | 'put' | 'delete' | 'patch';
  path: string;
}

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** Every route the running app serves, read from Express's router, so new endpoints are covered. */
export function listRoutes(app: INestApplication): Route[] {
  const express = app.getHttpAdapter().getInstance() as { router?: { stack: Layer[] }; _router?: { stack: Layer[] } };
  const stack = (express.router ?? express._router)?.stack ?? [];
  const routes: Route[] = [];
  for (const layer of stack) {
    if (!layer.route) continue;
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (on && ['get', 'post', 'put', 'delete', 'patch'].includes(method)) {
        routes.push({ method: method as Route['method'], path: layer.route.path });
      }
    }
  }
  return routes;
}
