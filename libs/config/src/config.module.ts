import { DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from './config.schema';
import { loadConfig } from './load-config';

/** Injection token of the parsed {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');

@Global()
@Module({})
export class ConfigModule {
  /** Provides the config parsed from `process.env`, or the one given (tests). */
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useFactory: () => config ?? loadConfig() }],
      exports: [APP_CONFIG],
    };
  }
}
