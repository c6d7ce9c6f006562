import { v7 as uuidv7 } from 'uuid';

/** A new time-ordered id (UUIDv7): index-friendly, and id order is creation order. */
export function newId(): string {
  return uuidv7();
}
