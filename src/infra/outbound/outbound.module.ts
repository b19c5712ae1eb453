import { Module } from '@nestjs/common';
import { OutboundHttp } from './outbound-http';

/** Requests to URLs users give: OutboundHttp (timeouts, bounded answers, address policy). */
@Module({ providers: [OutboundHttp], exports: [OutboundHttp] })
export class OutboundModule {}
