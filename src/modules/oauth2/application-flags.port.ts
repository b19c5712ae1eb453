import { Injectable } from '@nestjs/common';
import { ApplicationsService } from './applications.service';

/**
 * What other modules may read of an application's flags (the gateway: which privileged intents
 * its owner allowed). Served from ApplicationsService's cache, which every instance drops when
 * the application changes (the `a:<id>` notification).
 */
export abstract class ApplicationFlagsReader {
  /** The application's flags; 0 when it does not exist (any more). */
  abstract flagsOf(applicationId: string): Promise<number>;
}

@Injectable()
export class CachedApplicationFlags extends ApplicationFlagsReader {
  constructor(private readonly apps: ApplicationsService) {
    super();
  }

  async flagsOf(applicationId: string): Promise<number> {
    return (await this.apps.findCached(applicationId))?.flags ?? 0;
  }
}
