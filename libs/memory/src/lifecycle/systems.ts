import type { LifecycleConfig } from './lifecycle-config';

const DAY_MS = 86_400_000;

export interface SystemsState {
  storage_location: 'hippocampus' | 'neocortex';
  /** 0..1: how much recall still leans on the hippocampus (seed 000). */
  hippocampus_dependency: number;
}

/**
 * Seed 000 `systems_consolidation`: a memory older than 30 days moves to the neocortex and its
 * hippocampus dependency is multiplied by 0.8. Applied once, on the move, so running the daily
 * job twice changes nothing.
 */
export function systemsConsolidation(state: SystemsState, bornAt: Date, now: Date, config: LifecycleConfig): SystemsState {
  const ageDays = (now.getTime() - bornAt.getTime()) / DAY_MS;
  if (state.storage_location === 'neocortex' || ageDays <= config.systems.neocortex_age_days) return state;
  return { storage_location: 'neocortex', hippocampus_dependency: state.hippocampus_dependency * config.systems.hippocampus_factor };
}

/**
 * Seed 000 `episodic_semantic_boundary`: a generalisation of episodes counts as semantic when its
 * abstraction is at least 3 (1..5), its context dependency at most 0.5 and its generalisation
 * degree at least 0.7.
 */
export function isSemantic(g: { abstraction_level: number; context_dependency: number; generalization: number }, config: LifecycleConfig): boolean {
  const s = config.systems;
  return g.abstraction_level >= s.abstraction_level && g.context_dependency <= s.context_dependency && g.generalization >= s.generalization;
}
