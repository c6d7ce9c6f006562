import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ZodResponse } from 'nestjs-zod';
import { Documented } from '../common/api-docs';
import { Public, UsersOnly } from './auth.decorators';
import { LoginDto, LoginResponseDto, MeResponseDto, RegisterDto, RegisterResponseDto } from './auth.dto';
import { AuthService } from './auth.service';
import { CurrentPrincipal, type UserPrincipal } from './principal';

@ApiTags('auth')
@Controller({ path: 'auth', version: '1' })
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  /**
   * Creates a tenant with its owner and returns a JWT for the owner.
   * 201 `{token, user, tenant}`; 400 naming the bad field; 409 when the e-mail is taken.
   */
  @Public()
  @Post('register')
  @Documented({
    summary: 'Register a tenant and its owner',
    public: true,
    errors: [400, { status: 409, description: 'the e-mail is already registered' }, 413, 415],
  })
  @ZodResponse({ status: 201, type: RegisterResponseDto })
  register(@Body() body: RegisterDto) {
    return this.auth.register(body);
  }

  /** Exchanges e-mail and password for a JWT. 200 `{token}`; 401 when they do not match. */
  @Public()
  @Post('login')
  @Documented({
    summary: 'Log in: e-mail and password for a JWT',
    public: true,
    errors: [400, { status: 401, description: 'the e-mail and password do not match' }, 413, 415],
  })
  @HttpCode(200)
  @ZodResponse({ status: 200, type: LoginResponseDto })
  login(@Body() body: LoginDto) {
    return this.auth.login(body);
  }

  /** The caller's user and tenant (JWT only). */
  @ApiBearerAuth()
  @UsersOnly()
  @Get('me')
  @Documented({ summary: "Get the caller's user and tenant", errors: [{ status: 403, description: 'a Mind Key cannot use it (people only)' }] })
  @ZodResponse({ status: 200, type: MeResponseDto })
  me(@CurrentPrincipal() principal: UserPrincipal) {
    return this.auth.me(principal);
  }
}
