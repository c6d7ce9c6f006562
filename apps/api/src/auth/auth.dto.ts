import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { oneLine } from '../common/zod-fields';

const email = z
  .email({ message: 'must be an e-mail address' })
  .max(254, { message: 'must be at most 254 characters' })
  .refine((e) => e.split('@')[0]!.length <= 64, { message: 'must have at most 64 characters before the @' });
const password = z
  .string({ message: 'must be a string' })
  .min(8, { message: 'must be at least 8 characters' })
  .max(256, { message: 'must be at most 256 characters' });

export const RegisterSchema = z
  .object({
    email,
    password,
    tenant_name: oneLine(200),
  })
  .strict();
export class RegisterDto extends createZodDto(RegisterSchema) {}

export const LoginSchema = z.object({ email, password: z.string({ message: 'must be a string' }).max(256) }).strict();
export class LoginDto extends createZodDto(LoginSchema) {}

const isoDate = z.iso.datetime({ offset: true });

export const UserViewSchema = z.object({
  id: z.uuid(),
  tenant_id: z.uuid(),
  email: z.string(),
  role: z.enum(['owner', 'admin', 'member']),
  created_at: isoDate,
});
export const TenantViewSchema = z.object({ id: z.uuid(), name: z.string(), created_at: isoDate });

export const RegisterResponseSchema = z.object({
  token: z.string().describe('JWT for Authorization: Bearer; lifetime JWT_TTL_SECONDS'),
  user: UserViewSchema,
  tenant: TenantViewSchema,
});
export class RegisterResponseDto extends createZodDto(RegisterResponseSchema) {}

export const LoginResponseSchema = z.object({ token: z.string() });
export class LoginResponseDto extends createZodDto(LoginResponseSchema) {}

export const MeResponseSchema = z.object({ user: UserViewSchema, tenant: TenantViewSchema });
export class MeResponseDto extends createZodDto(MeResponseSchema) {}
