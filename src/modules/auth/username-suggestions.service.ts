import { Injectable } from '@nestjs/common';
import { UsersService } from '../users/users.service';
import type { UsernameSuggestionsResponse } from './auth.response';
import { usernameCandidates } from './username-suggestions';

const MAX_SUGGESTIONS = 5;

@Injectable()
export class UsernameSuggestionsService {
  constructor(private readonly users: UsersService) {}

  async suggest(globalName: string): Promise<UsernameSuggestionsResponse> {
    const suggestions: string[] = [];
    for (const candidate of usernameCandidates(globalName)) {
      if (await this.users.usernameAvailable(candidate)) suggestions.push(candidate);
      if (suggestions.length === MAX_SUGGESTIONS) break;
    }
    return { suggestions };
  }
}
