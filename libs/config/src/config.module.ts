import { DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from './config.schema';
import { CLOCK, systemClock, type Clock } from './clock';
import { loadConfig } from './load-config';

/** Injection token of the parsed {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');

@Global()
@Module({})
export class ConfigModule {
  /** Provides the config parsed from `process.env` (or the one given) and the clock (tests pass their own). */
  static forRoot(config?: AppConfig, clock: Clock = systemClock): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: APP_CONFIG, useFactory: () => config ?? loadConfig() },
        { provide: CLOCK, useValue: clock },
      ],
      exports: [APP_CONFIG, CLOCK],
    };
  }
}
